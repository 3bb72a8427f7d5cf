#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace kx {

// A token of CUDA C++ source. Comments and preprocessor lines never become tokens.
struct CudaToken
{
    enum class Kind { Identifier, Number, String, Char, Punctuator };
    Kind kind = Kind::Punctuator;
    std::string text;
    int line = 1;
    std::size_t begin = 0;                  // Offsets into the source.
    std::size_t end = 0;

    bool is(const char *punctuatorOrIdentifier) const
    {
        return (kind == Kind::Punctuator || kind == Kind::Identifier) && text == punctuatorOrIdentifier;
    }
};

// Stands for extern "C" among a macro's identifiers.
inline constexpr const char *kExternCMarker = "extern \"C\"";

// A #define of the source: enough to see through macros that stand for qualifiers such as __device__.
struct CudaMacro
{
    bool functionLike = false;
    std::vector<std::string> identifiers;   // The identifiers of its replacement text.
};

struct CudaTokens
{
    std::vector<CudaToken> tokens;
    std::map<std::string, CudaMacro> macros;
};

// Splits device source into tokens. Punctuators are single characters except "::", so ">>" closes two
// template argument lists. Blocks under "#if 0" are skipped.
CudaTokens tokenizeCuda(const std::string &source);

} // namespace kx
