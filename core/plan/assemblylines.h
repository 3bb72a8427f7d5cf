#pragma once

#include <string>
#include <vector>

namespace kx {

/**
 * Which line of a candidate's CUDA source each line of its PTX or SASS came from, read from the line information
 * NVRTC writes with -lineinfo: `.file`/`.loc` directives in PTX, `//## File "...", line N` comments in nvdisasm -g
 * output. Entry i is the 1-based source line of assembly line i + 1, or 0 where none applies (directives,
 * declarations, code from headers).
 */
struct AssemblyLineMap
{
    std::vector<int> sourceLine;

    bool empty() const; ///< No line maps to the source at all.
    /// The 0-based assembly lines that came from 1-based source line `line`.
    std::vector<int> assemblyLinesOf(int line) const;
    /// The 1-based source line of 0-based assembly line `index` (0: none).
    int sourceLineOf(int index) const;
};

/// PTX: `.file N "name"` names files (anywhere in the text; NVRTC writes them last, with the folder it ran in);
/// `.loc N line col` moves to a line of file N, which counts where its name is sourceName. A function's closing
/// brace ends the current line.
AssemblyLineMap mapPtxLines(const std::string &ptx, const std::string &sourceName = "candidate.cu");

/// SASS as nvdisasm -g writes it: `//## File "name", line N` before the instructions of that line.
AssemblyLineMap mapSassLines(const std::string &sass, const std::string &sourceName = "candidate.cu");

} // namespace kx
