#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace kx {

/// What the NVRTC child process compiles: the source with its in-memory headers and NVRTC's options, already
/// checked by NvrtcCompiler (the child only compiles).
struct NvrtcJob
{
    std::string source;
    std::vector<std::pair<std::string, std::string>> headers; ///< Name and text.
    std::vector<std::string> arguments;
    bool wantPtx = true;
    double timeoutSeconds = 0;     ///< The child's own backstop; the parent enforces the limit.
    std::size_t memoryLimitMb = 0; ///< Likewise.
};

/// What it answers.
struct NvrtcOutput
{
    int status = -1; ///< nvrtcResult of the compile; -1: the program was not even created.
    std::string statusText;
    std::string log;
    std::string cubin;
    std::string ptx;
    double compileMs = 0;
};

/// A message between the processes: fields, each an 8-byte length and its bytes, behind the same kind of length.
std::string encodeNvrtcJob(const NvrtcJob &job);
bool decodeNvrtcJob(const std::string &message, NvrtcJob &job);
std::string encodeNvrtcOutput(const NvrtcOutput &output);
bool decodeNvrtcOutput(const std::string &message, NvrtcOutput &output);

/// Reads one message (its length, then its bytes) from fd; false at the end of input or on an error.
bool readNvrtcMessage(int fd, std::string &message);
/// Writes one message; false on an error.
bool writeNvrtcMessage(int fd, const std::string &message);

/// The child's side: compiles each job read on stdin and writes its output on stdout, until stdin ends. This is
/// kx-nvrtc's main; it exits when the parent goes away. Returns the process's exit code.
int runNvrtcChild();

} // namespace kx
