#include "core/plan/cudatokenizer.h"

#include <array>
#include <cctype>
#include <string_view>

namespace kx {
namespace {

bool isIdentifierStart(char c)
{
    // Bytes of UTF-8 sequences count as letters, as universal character names do.
    return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' || static_cast<unsigned char>(c) >= 0x80;
}

bool isIdentifierChar(char c)
{
    return isIdentifierStart(c) || std::isdigit(static_cast<unsigned char>(c));
}

bool isDigit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

// Punctuators, longest first so that the first match is the longest one.
constexpr std::array<std::string_view, 48> kPunctuators = {
    "%:%:", "...", "<<=", ">>=", "->*", "<=>", "::", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",   "||",  "*=",  "/=",  "%=",  "+=",  "-=", "&=", "^=", "|=", "##", ".*", "<:", ":>", "<%", "%>",
    "%:",   "{",   "}",   "[",   "]",   "(",   ")",  ";",  ":",  "?",  ".",  "~",  "!",  ",",  "#",  "="};

std::string_view digraphMeaning(std::string_view text)
{
    if (text == "<:")
        return "[";
    if (text == ":>")
        return "]";
    if (text == "<%")
        return "{";
    if (text == "%>")
        return "}";
    if (text == "%:")
        return "#";
    if (text == "%:%:")
        return "##";
    return text;
}


class Lexer
{
public:
    explicit Lexer(std::string_view text, const std::vector<int> *lines = nullptr)
        : m_text(text)
        , m_lines(lines)
    {}

    std::vector<CudaToken> run()
    {
        std::vector<CudaToken> tokens;
        bool lineStart = true;
        bool space = false;
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if (c == '\n') {
                lineStart = true;
                space = false;
                ++m_pos;
            } else if (c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f') {
                space = true;
                ++m_pos;
            } else if (c == '/' && peek(1) == '/') {
                while (m_pos < m_text.size() && m_text[m_pos] != '\n')
                    ++m_pos;
                space = true;
            } else if (c == '/' && peek(1) == '*') {
                // A comment is one space: one that spans lines does not end a directive.
                const auto close = m_text.find("*/", m_pos + 2);
                m_pos = close == std::string_view::npos ? m_text.size() : close + 2;
                space = true;
            } else {
                CudaToken token;
                token.line = lineOf(m_pos);
                token.spaceBefore = space;
                token.lineStart = lineStart;
                lexToken(token);
                tokens.push_back(std::move(token));
                lineStart = false;
                space = false;
            }
        }
        return tokens;
    }

    // Lexes the token at the current position (which is no white space or comment).
    void lexToken(CudaToken &token)
    {
        const std::size_t begin = m_pos;
        const char c = m_text[m_pos];
        if (const std::size_t quote = literalQuote(); quote != std::string_view::npos) {
            token.kind = m_text[quote] == '"' ? CudaToken::Kind::String : CudaToken::Kind::Char;
            literal(quote);
        } else if (isIdentifierStart(c)) {
            token.kind = CudaToken::Kind::Identifier;
            while (m_pos < m_text.size() && isIdentifierChar(m_text[m_pos]))
                ++m_pos;
        } else if (isDigit(c) || (c == '.' && isDigit(peek(1)))) {
            token.kind = CudaToken::Kind::Number;
            number();
        } else {
            token.kind = CudaToken::Kind::Punctuator;
            token.text = std::string(punctuator());
            return;
        }
        token.text = std::string(m_text.substr(begin, m_pos - begin));
    }

    std::size_t position() const { return m_pos; }

private:
    char peek(std::size_t ahead) const { return m_pos + ahead < m_text.size() ? m_text[m_pos + ahead] : '\0'; }

    int lineOf(std::size_t position) const { return m_lines ? (*m_lines)[std::min(position, m_lines->size() - 1)] : 1; }

    // Where the opening quote of a string or character literal starting here is (after u8, u, U, L and R),
    // or npos.
    std::size_t literalQuote() const
    {
        std::size_t i = m_pos;
        if (m_text.compare(i, 2, "u8") == 0)
            i += 2;
        else if (m_text[i] == 'u' || m_text[i] == 'U' || m_text[i] == 'L')
            ++i;
        if (i < m_text.size() && m_text[i] == 'R' && i + 1 < m_text.size() && m_text[i + 1] == '"')
            ++i;
        if (i < m_text.size() && (m_text[i] == '"' || m_text[i] == '\''))
            return i;
        return std::string_view::npos;
    }

    void literal(std::size_t quote)
    {
        const char delimiter = m_text[quote];
        const bool raw = delimiter == '"' && quote > m_pos && m_text[quote - 1] == 'R';
        m_pos = quote + 1;
        if (raw) {
            const auto open = m_text.find('(', m_pos);
            const auto lineEnd = m_text.find('\n', m_pos);
            if (open == std::string_view::npos || (lineEnd != std::string_view::npos && lineEnd < open)) {
                m_pos = lineEnd == std::string_view::npos ? m_text.size() : lineEnd;
                return;
            }
            const std::string closing = ")" + std::string(m_text.substr(m_pos, open - m_pos)) + "\"";
            const auto close = m_text.find(closing, open);
            m_pos = close == std::string_view::npos ? m_text.size() : close + closing.size();
        } else {
            // An unterminated literal ends at the end of its line.
            while (m_pos < m_text.size() && m_text[m_pos] != delimiter && m_text[m_pos] != '\n')
                m_pos += m_text[m_pos] == '\\' && peek(1) != '\n' ? 2 : 1;
            if (m_pos < m_text.size() && m_text[m_pos] == delimiter)
                ++m_pos;
            m_pos = std::min(m_pos, m_text.size());
        }
        // A user-defined literal's suffix belongs to the token.
        while (m_pos < m_text.size() && isIdentifierChar(m_text[m_pos]))
            ++m_pos;
    }

    // A pp-number: digits, letters, '.', digit separators and exponent signs.
    void number()
    {
        while (m_pos < m_text.size()) {
            const char c = m_text[m_pos];
            if ((c == '+' || c == '-') && std::string_view("eEpP").find(m_text[m_pos - 1]) != std::string_view::npos)
                ++m_pos;
            else if (isIdentifierChar(c) || c == '.')
                ++m_pos;
            else if (c == '\'' && isIdentifierChar(peek(1)))
                m_pos += 2;
            else
                break;
        }
    }

    std::string_view punctuator()
    {
        // "<::" is "<" then "::" unless a ':' or '>' follows (C++11), so "a<::b>" reads as expected.
        if (m_text.compare(m_pos, 3, "<::") == 0 && peek(3) != ':' && peek(3) != '>') {
            ++m_pos;
            return "<";
        }
        for (const std::string_view candidate : kPunctuators) {
            if (m_text.compare(m_pos, candidate.size(), candidate) == 0) {
                m_pos += candidate.size();
                return digraphMeaning(candidate);
            }
        }
        return m_text.substr(m_pos++, 1);
    }

    std::string_view m_text;
    const std::vector<int> *m_lines;
    std::size_t m_pos = 0;
};

} // namespace

SplicedSource spliceLines(const std::string &source)
{
    SplicedSource result;
    result.text.reserve(source.size());
    result.lines.reserve(source.size() + 1);
    int line = 1;
    for (std::size_t i = 0; i < source.size();) {
        if (source[i] == '\\' && i + 1 < source.size() && source[i + 1] == '\n') {
            i += 2;
            ++line;
            continue;
        }
        if (source[i] == '\\' && i + 2 < source.size() && source[i + 1] == '\r' && source[i + 2] == '\n') {
            i += 3;
            ++line;
            continue;
        }
        result.text += source[i];
        result.lines.push_back(line);
        if (source[i] == '\n')
            ++line;
        ++i;
    }
    result.lines.push_back(line);
    return result;
}

std::vector<CudaToken> tokenizeCuda(const std::string &source)
{
    const SplicedSource spliced = spliceLines(source);
    return Lexer(spliced.text, &spliced.lines).run();
}

bool lexSingleToken(const std::string &text, CudaToken &token)
{
    if (text.empty())
        return false;
    const char c = text[0];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f' || text.compare(0, 2, "//") == 0
        || text.compare(0, 2, "/*") == 0)
        return false;
    Lexer lexer(text);
    lexer.lexToken(token);
    return lexer.position() == text.size();
}

} // namespace kx
