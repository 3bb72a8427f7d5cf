#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kx {

/// The longest compile log kept: logs are stored in archives, shown, and put into repair prompts.
inline constexpr std::size_t kMaxCompileLogBytes = 16 * 1024;

/**
 * Keeps only compiler diagnostics in an NVRTC log: errors, warnings and remarks in files isKnownFile accepts
 * (the candidate and the in-memory headers) with their source lines and instantiation notes, ptxas' report,
 * NVRTC's option errors and the summary lines. Everything else, a diagnostic in any other file above all (its
 * message and source line could quote what that file holds), is left out with a note. A log longer than
 * kMaxCompileLogBytes is cut, with a note; ptxas' report at its end is kept.
 */
std::string scrubCompileLog(std::string_view log, const std::function<bool(std::string_view file)> &isKnownFile);

/// The same for a log whose in-memory headers are not known any more (one read from an archive, perhaps written
/// by an older version that let candidates include files): only diagnostics in candidate.cu are kept.
std::string scrubCompileLog(std::string_view log);

} // namespace kx
