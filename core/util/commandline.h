#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * Splits a command line into program and arguments as a POSIX shell would: quotes and backslashes group,
 * $VARIABLES expand (an undefined one is an error). Command substitution and the shell's operators
 * (| & ; < > and the like, unquoted) are refused, as is an empty line. Uses the C library's wordexp(3).
 * Used for a worker command (`kx search --worker`, the GUI's worker setting): "ssh gpu-box kx worker".
 */
Expected<std::vector<std::string>> splitCommandLine(const std::string &text);

} // namespace kx
