#pragma once

// What the launch-plan parser and resolver share: the error they throw inside (turned into an Error by the public
// functions) and the small helpers their messages are written with ("steps[1].grid[0]: ...").
#include <stdexcept>
#include <string>

namespace kx::planerrors {

struct PlanError : std::runtime_error
{
    using std::runtime_error::runtime_error;
};

[[noreturn]] inline void fail(const std::string &where, const std::string &what)
{
    throw PlanError(where + ": " + what);
}

inline std::string quote(const std::string &text)
{
    return "'" + text + "'";
}

inline std::string index(const std::string &where, std::size_t i)
{
    return where + "[" + std::to_string(i) + "]";
}

// "a, b, c", or "none" for an empty range.
template <typename Range, typename Name>
std::string listOf(const Range &range, Name name)
{
    std::string text;
    for (const auto &item : range)
        text += (text.empty() ? "" : ", ") + name(item);
    return text.empty() ? "none" : text;
}

} // namespace kx::planerrors
