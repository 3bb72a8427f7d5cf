#pragma once

#include "core/plan/cudatokenizer.h"

#include <cstddef>
#include <string>
#include <vector>

namespace kx {

// One declarator as the declaration scanner reads it: "x", "*const p", "(*hook)()", "f(int) const".
struct CudaDeclarator
{
    std::string name;
    int line = 0;
    bool function = false;       // The name's nearest operator is a parameter list.
    std::size_t paramsBegin = 0; // Functions: token range between the parentheses.
    std::size_t paramsEnd = 0;
    std::size_t end = 0; // After the declarator (at its initializer, body, ',' or ';').
    // The pointer operator nearest to the name, where it decides what the name is.
    bool pointer = false;
    bool reference = false;
    bool pointerConst = false; // "* const"

    // Whether the declared object cannot change, given whether the declaration's specifiers say const.
    bool constant(bool constSpecifier) const { return pointer ? pointerConst : constSpecifier; }
};

// Moves over preprocessed tokens: balanced brackets, template argument lists, names, declarators. Every
// function is a loop over the tokens, none recurses, so any nesting costs time in proportion, never stack.
class CudaTokenReader
{
protected:
    explicit CudaTokenReader(const std::vector<CudaToken> &tokens)
        : m_tokens(tokens)
    {}

    std::size_t size() const { return m_tokens.size(); }
    const CudaToken &token(std::size_t i) const { return m_tokens[i]; }
    bool is(std::size_t i, const char *text) const { return i < m_tokens.size() && m_tokens[i].is(text); }
    bool isIdentifier(std::size_t i) const
    {
        return i < m_tokens.size() && m_tokens[i].kind == CudaToken::Kind::Identifier;
    }

    // i is at ( [ or {: the index after its partner (or the end of input).
    std::size_t skipBalanced(std::size_t i) const;
    // i is at the "<" of a template argument or parameter list: the index after its ">", or of the ";" or
    // closing bracket that ends the search.
    std::size_t skipAngles(std::size_t i) const;
    // Past the next ";" of this scope, or up to the "}" that closes it.
    std::size_t skipStatement(std::size_t i) const;
    // For constructs the scanner does not know: up to ";" or past a braced block (and its ";").
    std::size_t skipUnknown(std::size_t i) const;

    // After a name at i: "a::b<T>::c", "::x", "~S", "operator+", "operator int"; i when there is none.
    std::size_t nameEnd(std::size_t i) const;
    // The name as written, without template arguments: "a::b::c", "operator+", "~S".
    std::string nameText(std::size_t begin, std::size_t end) const;
    std::string lastComponent(std::size_t begin, std::size_t end) const;
    // "S::S" or "S::~S": a constructor or destructor defined outside its type.
    bool isConstructorName(std::size_t begin, std::size_t end) const;
    static bool isParenthesisedSpecifier(const std::string &word);

    // Reads the declarator at i; false when there is none (an abstract declarator, an expression ...).
    bool readDeclarator(std::size_t i, CudaDeclarator &declarator) const;
    // After a function's declarator: past its body (with constructor initializers and a function-try-block's
    // handlers), or npos when it has none.
    std::size_t skipFunctionTail(std::size_t i) const;
    // Past "= ...", "{ ... }" or ": bits" to the "," or ";" after them.
    std::size_t skipInitializer(std::size_t i) const;

    std::size_t m_pos = 0;

private:
    std::size_t operatorEnd(std::size_t i) const;

    const std::vector<CudaToken> &m_tokens;
};

} // namespace kx
