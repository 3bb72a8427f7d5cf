// parseKernelSignatures(): the extern "C" __global__ functions of a candidate and their parameters.
#include "core/plan/kernelsignatures.h"

#include "core/plan/cudadeclarations.h"
#include "core/plan/cudapreprocessor.h"
#include "core/plan/cudatokenizer.h"
#include "core/plan/launchplan.h"

#include <limits>
#include <map>
#include <set>
#include <string_view>

namespace kx {
namespace {

using Kind = CudaToken::Kind;

// Qualifiers that do not change how an argument is passed.
const std::set<std::string_view> kQualifiers = {"const",    "volatile", "__restrict__",      "__restrict",
                                                "restrict", "std",      "__grid_constant__", "register"};

const std::set<std::string_view> kIntegerWords = {"signed", "unsigned", "short", "int", "long"};

constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Values above 2^53 never reach a kernel (plan expressions stop there), so 64-bit unsigned types can
// share int64's upper bound.
const std::map<std::string_view, IntegerRange> kIntegerTypedefs = {
    {"int8_t", {-128, 127}},
    {"uint8_t", {0, 255}},
    {"int16_t", {-32768, 32767}},
    {"uint16_t", {0, 65535}},
    {"int32_t", {std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()}},
    {"uint32_t", {0, std::numeric_limits<std::uint32_t>::max()}},
    {"int64_t", {kInt64Min, kInt64Max}},
    {"uint64_t", {0, kInt64Max}},
    {"size_t", {0, kInt64Max}},
    {"ssize_t", {kInt64Min, kInt64Max}},
    {"ptrdiff_t", {kInt64Min, kInt64Max}},
    {"intptr_t", {kInt64Min, kInt64Max}},
    {"uintptr_t", {0, kInt64Max}},
};

// The type's words without qualifiers, e.g. {"unsigned", "int"}.
std::vector<std::string> baseWords(const std::vector<std::string> &identifiers)
{
    std::vector<std::string> words;
    for (const std::string &word : identifiers) {
        if (!kQualifiers.count(word))
            words.push_back(word);
    }
    return words;
}

std::optional<IntegerRange> integerRange(const std::vector<std::string> &words)
{
    if (words.size() == 1) {
        const auto typedefRange = kIntegerTypedefs.find(words.front());
        if (typedefRange != kIntegerTypedefs.end())
            return typedefRange->second;
    }
    if (words.empty())
        return std::nullopt;
    bool isUnsigned = false;
    int bits = 32;
    for (const std::string &word : words) {
        if (!kIntegerWords.count(word))
            return std::nullopt;
        if (word == "unsigned")
            isUnsigned = true;
        else if (word == "short")
            bits = 16;
        else if (word == "long")
            bits = 64; // LP64: long and long long are 64-bit.
    }
    if (bits == 64)
        return IntegerRange{isUnsigned ? 0 : kInt64Min, kInt64Max};
    const std::int64_t span = std::int64_t(1) << bits;
    return isUnsigned ? IntegerRange{0, span - 1} : IntegerRange{-span / 2, span / 2 - 1};
}

bool isFloatType(const std::vector<std::string> &words)
{
    return words.size() == 1 && (words.front() == "float" || words.front() == "double");
}

// The driver API's tensor map (cuda.h's typedef, or its struct), passed by value.
bool isTensorMapType(std::vector<std::string> words)
{
    if (words.size() == 2 && words.front() == "struct")
        words.erase(words.begin());
    return words.size() == 1 && (words.front() == "CUtensorMap" || words.front() == "CUtensorMap_st");
}

// Joins tokens as they were written, with one space wherever the source had any gap.
std::string joinTokens(const std::vector<CudaToken> &tokens, std::size_t begin, std::size_t end)
{
    std::string text;
    for (std::size_t i = begin; i < end; ++i) {
        if (i > begin && tokens[i].spaceBefore)
            text += ' ';
        text += tokens[i].text;
    }
    return text;
}

KernelParam classify(const std::vector<CudaToken> &tokens, std::size_t begin, std::size_t end)
{
    // A default argument is not part of the type.
    for (std::size_t i = begin; i < end; ++i) {
        if (tokens[i].is("=")) {
            end = i;
            break;
        }
    }
    bool array = false;
    std::size_t typeEnd = end;
    for (std::size_t i = begin; i < end; ++i) {
        if (tokens[i].is("[")) {
            array = true;
            typeEnd = i;
            break;
        }
    }
    KernelParam param;
    if (typeEnd > begin + 1 && tokens[typeEnd - 1].kind == Kind::Identifier
        && !kQualifiers.count(tokens[typeEnd - 1].text) && !kIntegerWords.count(tokens[typeEnd - 1].text)
        && !tokens[typeEnd - 2].is("::")) {
        param.name = tokens[typeEnd - 1].text;
        --typeEnd;
    }
    param.type = joinTokens(tokens, begin, typeEnd);
    if (array)
        param.type += "[]";

    std::vector<std::string> identifiers;
    std::size_t lastStar = std::string::npos;
    bool reference = false;
    for (std::size_t i = begin; i < typeEnd; ++i) {
        if (tokens[i].kind == Kind::Identifier)
            identifiers.push_back(tokens[i].text);
        else if (tokens[i].is("*"))
            lastStar = i;
        else if (tokens[i].is("&"))
            reference = true;
    }
    if (reference) {
        param.kind = KernelParam::Kind::Other;
    } else if (lastStar != std::string::npos || array) {
        // Const pointee: "const" before the last '*' ("float *const p" is a const pointer to non-const).
        const std::size_t pointeeEnd = lastStar != std::string::npos ? lastStar : typeEnd;
        bool constPointee = false;
        for (std::size_t i = begin; i < pointeeEnd; ++i)
            constPointee = constPointee || tokens[i].is("const");
        param.kind = constPointee ? KernelParam::Kind::ConstPointer : KernelParam::Kind::Pointer;
    } else {
        const std::vector<std::string> words = baseWords(identifiers);
        if (integerRange(words))
            param.kind = KernelParam::Kind::Int;
        else if (isFloatType(words))
            param.kind = KernelParam::Kind::Float;
        else if (isTensorMapType(words))
            param.kind = KernelParam::Kind::TensorMap;
        else
            param.kind = KernelParam::Kind::Other;
    }
    return param;
}

std::vector<KernelParam> parameters(const std::vector<CudaToken> &tokens, std::size_t begin, std::size_t end)
{
    std::vector<KernelParam> params;
    if (begin >= end || (end == begin + 1 && tokens[begin].is("void")))
        return params;
    int depth = 0;
    std::size_t start = begin;
    for (std::size_t i = begin; i <= end; ++i) {
        if (i == end || (depth == 0 && tokens[i].is(","))) {
            if (i > start)
                params.push_back(classify(tokens, start, i));
            start = i + 1;
            continue;
        }
        if (tokens[i].is("(") || tokens[i].is("[") || tokens[i].is("{") || tokens[i].is("<"))
            ++depth;
        else if (tokens[i].is(")") || tokens[i].is("]") || tokens[i].is("}") || tokens[i].is(">"))
            --depth;
    }
    return params;
}

} // namespace

std::vector<KernelSignature> parseKernelSignatures(const std::string &source)
{
    // The kernels NVRTC sees, macros replaced: what the device-only check reads too. A source the check
    // rejects for its size or nesting has no kernels here (it does not compile either).
    const auto tokens = preprocessCuda(source);
    if (!tokens)
        return {};
    const auto declarations = scanDeclarations(*tokens);
    if (!declarations)
        return {};
    std::vector<KernelSignature> kernels;
    for (const CudaDeclaration &declaration : *declarations) {
        if (declaration.kind != CudaDeclaration::Kind::Function || declaration.member || !declaration.has("__global__")
            || !declaration.cLinkage) {
            continue;
        }
        bool known = false;
        for (const KernelSignature &kernel : kernels)
            known = known || kernel.name == declaration.name;
        if (known)
            continue; // A declaration followed by its definition.
        kernels.push_back({declaration.name, parameters(*tokens, declaration.paramsBegin, declaration.paramsEnd)});
    }
    return kernels;
}

std::optional<IntegerRange> integerParamRange(const std::string &type)
{
    std::vector<std::string> identifiers;
    for (const CudaToken &token : tokenizeCuda(type)) {
        if (token.kind == Kind::Identifier)
            identifiers.push_back(token.text);
        else if (!token.is("::"))
            return std::nullopt;
    }
    return integerRange(baseWords(identifiers));
}

} // namespace kx
