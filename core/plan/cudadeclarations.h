#pragma once

#include "core/plan/cudatokenizer.h"
#include "core/util/expected.h"

#include <cstddef>
#include <set>
#include <string>
#include <vector>

namespace kx {

// A function or variable that a CUDA source declares at namespace scope, or a member function or static data
// member of one of its types (non-static data members are part of their type and not listed).
struct CudaDeclaration
{
    enum class Kind { Function, Variable };
    Kind kind = Kind::Function;
    std::string name; // As written, e.g. "relu", "Vec::length", "operator+"; members "Type::f".
    int line = 0;
    std::set<std::string> specifiers; // __global__, __device__, const, static ...; __attribute__((device))
                                      // counts as __device__.
    bool cLinkage = false;            // extern "C", or inside an extern "C" block.
    bool definition = false;          // Functions: has a body.
    bool member = false;              // Declared in a struct, class or union (friends included).
    bool constant = false;            // Variables: the object itself cannot change (constexpr, or const on
                                      // the object: "const int *p" is not, "int *const p" is).
    std::size_t paramsBegin = 0;      // Functions: token range between the parentheses.
    std::size_t paramsEnd = 0;

    bool has(const char *specifier) const { return specifiers.count(specifier) > 0; }
};

// Lists the declarations of preprocessed tokens (see preprocessCuda): every declarator of a declaration
// ("int a, *b, f();"), parenthesised ones ("int (main)()", "void (*hook)()"), those after a type's body
// ("struct S {} s;") and the members of types. A reader for checks and listings, not a C++ parser: what it
// does not recognise it skips. Iterative and linear; an Error when scopes nest deeper than its limit.
Expected<std::vector<CudaDeclaration>> scanDeclarations(const std::vector<CudaToken> &tokens);

} // namespace kx
