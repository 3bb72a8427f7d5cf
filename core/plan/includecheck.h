#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/// The CUDA headers a candidate may #include. NVRTC gets them, and the toolkit headers they include, from memory
/// (ToolkitHeaders): it never opens a file a candidate names.
const std::vector<std::string> &allowedCudaHeaders();

/// allowedCudaHeaders() as one line ("cuda_runtime.h, cuda_fp16.h, ..."), for messages and prompts.
std::string allowedCudaHeadersText();

/**
 * Checks that no preprocessor line of a candidate can read a file: every #include names an allowed header
 * literally, and there is no #include_next, #import, #embed, __has_include, #line with a file name, nor a #if
 * that calls a macro or expands one that pastes tokens (the way to build __has_include). Every # that starts a
 * line counts, also in comments and in branches that #if leaves out: a mistake about those cannot let a file in.
 * Returns the allowed headers included, each once in order, or an Error with one "line N: ..." per problem.
 */
Expected<std::vector<std::string>> checkIncludes(const std::string &source);

} // namespace kx
