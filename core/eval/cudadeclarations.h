#pragma once

#include "core/eval/cudatokenizer.h"

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace kx {

// A function or variable declared at namespace scope of a CUDA source (members of types are not listed).
struct CudaDeclaration
{
    enum class Kind { Function, Variable };
    Kind kind = Kind::Function;
    std::string name;                       // As written, e.g. "relu", "Vec::length", "operator+".
    int line = 0;
    std::set<std::string> specifiers;       // Identifiers before the name, macros expanded: __global__, const ...
    bool cLinkage = false;                  // extern "C", or inside an extern "C" block.
    bool definition = false;                // Functions: has a body.
    std::size_t paramsBegin = 0;            // Functions: token range between the parentheses.
    std::size_t paramsEnd = 0;

    bool has(const char *specifier) const { return specifiers.count(specifier) > 0; }
};

// Lists the namespace-scope declarations of tokenized source. A reader for checks and listings, not a
// C++ parser: constructs it does not recognise are skipped rather than reported.
std::vector<CudaDeclaration> scanDeclarations(const CudaTokens &tokens);

} // namespace kx
