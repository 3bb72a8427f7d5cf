#include "format.h"

#include <algorithm>
#include <cstdio>

namespace kx::cli {

std::string formatSpeedup(double speedup)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", speedup);
    return text;
}

std::string formatMs(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, ms < 1 ? "%.4f ms" : "%.3f ms", ms);
    return text;
}

std::string shortId(const std::string &id) { return id.substr(0, 12); }

std::string singleLine(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '|', '/');
    return text;
}

std::string column(const std::string &text, std::size_t width)
{
    if (text.size() >= width)
        return text.substr(0, width);
    return text + std::string(width - text.size(), ' ');
}

} // namespace kx::cli
