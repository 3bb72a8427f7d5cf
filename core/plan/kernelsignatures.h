#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kx {

// The values an integer kernel parameter type can hold, e.g. int -> [-2^31, 2^31 - 1].
struct IntegerRange
{
    std::int64_t min = 0;
    std::int64_t max = 0;
};

// The range of an integer parameter type as written ("const int", "std::uint32_t"); nullopt when the
// type is not one parseKernelSignatures() classifies as an integer.
std::optional<IntegerRange> integerParamRange(const std::string &type);

} // namespace kx
