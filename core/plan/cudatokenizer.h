#pragma once

#include <string>
#include <vector>

namespace kx {

// A preprocessing token of CUDA C++ source: line splices are removed and comments are white space, as in the
// compiler's first translation phases.
struct CudaToken
{
    enum class Kind { Identifier, Number, String, Char, Punctuator };
    Kind kind = Kind::Punctuator;
    std::string text;         // Digraphs are spelled as the token they stand for ("<%" is "{").
    int line = 1;             // Source line; for tokens a macro produced, the line of its use.
    bool spaceBefore = false; // White space or a comment stood before it.
    bool lineStart = false;   // The first token of a logical line (a '#' there starts a directive).

    bool is(const char *punctuatorOrIdentifier) const
    {
        return (kind == Kind::Punctuator || kind == Kind::Identifier) && text == punctuatorOrIdentifier;
    }
};

// Translation phase 2: source with its line splices (backslash-newline, also before CR LF) removed. lines[i] is the
// source line of text[i]; one more entry, last, is the line just past the end.
struct SplicedSource
{
    std::string text;
    std::vector<int> lines;
};
SplicedSource spliceLines(const std::string &source);

// Splits source into preprocessing tokens: identifiers, pp-numbers, string and character literals (with their
// prefixes, raw strings and user-defined suffixes) and punctuators, the longest that fits ("->", ">>=", "##").
// Directives stay in the stream: a '#' with lineStart set begins one. Linear in the size of the source.
std::vector<CudaToken> tokenizeCuda(const std::string &source);

// The single token text spells, or false when it is no token or several (for "##" pasting).
bool lexSingleToken(const std::string &text, CudaToken &token);

} // namespace kx
