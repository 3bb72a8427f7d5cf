#pragma once

// How doctest prints string lists when a check fails (instead of "{?}"). kx enums print through kx::toString,
// which kx_add_plain_test enables with DOCTEST_CONFIG_DOUBLE_STRINGIFY.
#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace doctest {

template <>
struct StringMaker<std::vector<std::string>>
{
    static String convert(const std::vector<std::string> &values)
    {
        std::string text = "{";
        for (std::size_t i = 0; i < values.size(); ++i)
            text += (i ? ", \"" : "\"") + values[i] + "\"";
        return (text + "}").c_str();
    }
};

} // namespace doctest
