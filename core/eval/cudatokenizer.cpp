#include "core/eval/cudatokenizer.h"

#include <algorithm>
#include <cctype>

namespace kx {
namespace {

bool isIdentifierStart(char c)
{
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}

bool isIdentifierChar(char c)
{
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

std::string trim(const std::string &text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first == std::string::npos)
        return {};
    const auto last = text.find_last_not_of(" \t\r\n");
    return text.substr(first, last - first + 1);
}

class Tokenizer
{
public:
    explicit Tokenizer(const std::string &source) : m_source(source) {}

    CudaTokens run()
    {
        bool lineStart = true;
        while (m_pos < m_source.size()) {
            const char c = m_source[m_pos];
            if (c == '\n') {
                ++m_line;
                ++m_pos;
                lineStart = true;
                continue;
            }
            if (std::isspace(static_cast<unsigned char>(c))) {
                ++m_pos;
                continue;
            }
            if (c == '/' && peek(1) == '/') {
                skipLineComment();
                continue;
            }
            if (c == '/' && peek(1) == '*') {
                skipBlockComment();
                continue;
            }
            if (c == '#' && lineStart) {
                directive();
                continue;
            }
            lineStart = false;
            if (m_skipDepth > 0) {
                ++m_pos;
                continue;
            }
            if (isStringStart())
                stringLiteral();
            else if (isIdentifierStart(c))
                identifier();
            else if (std::isdigit(static_cast<unsigned char>(c))
                     || (c == '.' && std::isdigit(static_cast<unsigned char>(peek(1)))))
                number();
            else if (c == '\'')
                charLiteral();
            else if (c == ':' && peek(1) == ':')
                push(CudaToken::Kind::Punctuator, m_pos, m_pos + 2);
            else
                push(CudaToken::Kind::Punctuator, m_pos, m_pos + 1);
        }
        return std::move(m_result);
    }

private:
    char peek(std::size_t ahead) const
    {
        return m_pos + ahead < m_source.size() ? m_source[m_pos + ahead] : '\0';
    }

    void push(CudaToken::Kind kind, std::size_t begin, std::size_t end)
    {
        CudaToken token;
        token.kind = kind;
        token.text = m_source.substr(begin, end - begin);
        token.line = m_line;
        token.begin = begin;
        token.end = end;
        m_result.tokens.push_back(std::move(token));
        m_pos = end;
    }

    void skipLineComment()
    {
        while (m_pos < m_source.size() && m_source[m_pos] != '\n')
            ++m_pos;
    }

    void skipBlockComment()
    {
        m_pos += 2;
        while (m_pos < m_source.size() && !(m_source[m_pos] == '*' && peek(1) == '/')) {
            if (m_source[m_pos] == '\n')
                ++m_line;
            ++m_pos;
        }
        m_pos = std::min(m_pos + 2, m_source.size());
    }

    // Encoding prefixes (u8, u, U, L) and raw strings (R"delim( ... )delim").
    bool isStringStart() const
    {
        std::size_t i = m_pos;
        if (m_source.compare(i, 2, "u8") == 0)
            i += 2;
        else if (m_source[i] == 'u' || m_source[i] == 'U' || m_source[i] == 'L')
            ++i;
        if (i < m_source.size() && m_source[i] == 'R')
            ++i;
        return i < m_source.size() && m_source[i] == '"';
    }

    void stringLiteral()
    {
        const std::size_t begin = m_pos;
        const int line = m_line;
        while (m_source[m_pos] != '"')
            ++m_pos;
        const bool raw = m_pos > begin && m_source[m_pos - 1] == 'R';
        ++m_pos;
        if (raw) {
            const auto open = m_source.find('(', m_pos);
            const std::string closing = ")" + m_source.substr(m_pos, open == std::string::npos ? 0 : open - m_pos) + "\"";
            const auto close = open == std::string::npos ? std::string::npos : m_source.find(closing, open);
            const std::size_t end = close == std::string::npos ? m_source.size() : close + closing.size();
            for (std::size_t i = m_pos; i < end; ++i)
                m_line += m_source[i] == '\n';
            m_pos = end;
        } else {
            while (m_pos < m_source.size() && m_source[m_pos] != '"' && m_source[m_pos] != '\n')
                m_pos += m_source[m_pos] == '\\' ? 2 : 1;
            m_pos = std::min(m_pos + 1, m_source.size());
        }
        const std::size_t end = m_pos;
        m_pos = begin;
        push(CudaToken::Kind::String, begin, end);
        m_result.tokens.back().line = line;
    }

    void charLiteral()
    {
        const std::size_t begin = m_pos++;
        while (m_pos < m_source.size() && m_source[m_pos] != '\'' && m_source[m_pos] != '\n')
            m_pos += m_source[m_pos] == '\\' ? 2 : 1;
        const std::size_t end = std::min(m_pos + 1, m_source.size());
        m_pos = begin;
        push(CudaToken::Kind::Char, begin, end);
    }

    void identifier()
    {
        std::size_t end = m_pos;
        while (end < m_source.size() && isIdentifierChar(m_source[end]))
            ++end;
        push(CudaToken::Kind::Identifier, m_pos, end);
    }

    // A pp-number: digits, letters, '.', digit separators and exponent signs.
    void number()
    {
        std::size_t end = m_pos;
        while (end < m_source.size()) {
            const char c = m_source[end];
            if (isIdentifierChar(c) || c == '.'
                || (c == '\'' && end + 1 < m_source.size() && isIdentifierChar(m_source[end + 1]))) {
                ++end;
            } else if ((c == '+' || c == '-') && end > m_pos
                       && std::string("eEpP").find(m_source[end - 1]) != std::string::npos) {
                ++end;
            } else {
                break;
            }
        }
        push(CudaToken::Kind::Number, m_pos, end);
    }

    // Reads one logical preprocessor line (with continuations, without comments) and records macros.
    void directive()
    {
        std::string text;
        ++m_pos;
        while (m_pos < m_source.size()) {
            const char c = m_source[m_pos];
            if (c == '\\' && peek(1) == '\n') {
                m_pos += 2;
                ++m_line;
                text += ' ';
            } else if (c == '\\' && peek(1) == '\r' && peek(2) == '\n') {
                m_pos += 3;
                ++m_line;
                text += ' ';
            } else if (c == '\n') {
                break;
            } else if (c == '/' && peek(1) == '/') {
                skipLineComment();
            } else if (c == '/' && peek(1) == '*') {
                skipBlockComment();
                text += ' ';
            } else {
                text += c;
                ++m_pos;
            }
        }
        text = trim(text);
        std::size_t nameEnd = 0;
        while (nameEnd < text.size() && isIdentifierChar(text[nameEnd]))
            ++nameEnd;
        const std::string name = text.substr(0, nameEnd);
        const std::string rest = trim(text.substr(nameEnd));

        if (m_skipDepth > 0) {
            if (name == "if" || name == "ifdef" || name == "ifndef")
                ++m_skipDepth;
            else if (name == "endif")
                --m_skipDepth;
            else if ((name == "else" || name == "elif") && m_skipDepth == 1)
                m_skipDepth = 0;
            return;
        }
        if (name == "if" && rest == "0")
            m_skipDepth = 1;
        else if (name == "define")
            define(rest);
    }

    void define(const std::string &text)
    {
        std::size_t i = 0;
        while (i < text.size() && isIdentifierChar(text[i]))
            ++i;
        if (i == 0)
            return;
        CudaMacro macro;
        macro.functionLike = i < text.size() && text[i] == '(';
        std::size_t body = i;
        if (macro.functionLike) {
            const auto close = text.find(')', i);
            body = close == std::string::npos ? text.size() : close + 1;
        }
        for (std::size_t j = body; j < text.size();) {
            if (isIdentifierStart(text[j])) {
                std::size_t end = j;
                while (end < text.size() && isIdentifierChar(text[end]))
                    ++end;
                macro.identifiers.push_back(text.substr(j, end - j));
                j = end;
                // "#define KERNEL extern "C" __global__" gives C linkage wherever KERNEL is used.
                std::size_t next = j;
                while (next < text.size() && text[next] == ' ')
                    ++next;
                if (macro.identifiers.back() == "extern" && text.compare(next, 3, "\"C\"") == 0) {
                    macro.identifiers.push_back(kExternCMarker);
                    j = next + 3;
                }
            } else if (std::isdigit(static_cast<unsigned char>(text[j]))) {
                while (j < text.size() && isIdentifierChar(text[j]))
                    ++j;
            } else {
                ++j;
            }
        }
        m_result.macros[text.substr(0, i)] = std::move(macro);
    }

    const std::string &m_source;
    std::size_t m_pos = 0;
    int m_line = 1;
    int m_skipDepth = 0;    // > 0 inside "#if 0": nesting depth of conditionals.
    CudaTokens m_result;
};

} // namespace

CudaTokens tokenizeCuda(const std::string &source)
{
    return Tokenizer(source).run();
}

} // namespace kx
