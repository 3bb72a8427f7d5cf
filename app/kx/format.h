#pragma once

#include <string>

namespace kx::cli {

/// "1.42x"
std::string formatSpeedup(double speedup);
/// "0.1234 ms" with sensible precision.
std::string formatMs(double ms);
/// The first 12 characters of a candidate id (what `kx archive show` accepts).
std::string shortId(const std::string &id);
/// Text for one table cell: line breaks become spaces, Markdown's '|' becomes '/'.
std::string singleLine(std::string text);
/// Pads or cuts text to width columns.
std::string column(const std::string &text, std::size_t width);

} // namespace kx::cli
