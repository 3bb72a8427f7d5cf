#pragma once

#include "core/util/expected.h"

#include <string>

namespace kx {

/**
 * SASS from a cubin, through the CUDA toolkit's cuobjdump (-sass) or nvdisasm, whichever is found first on
 * PATH or in the toolkit's bin folder of the build. Runs the tool as a child process; needs no GPU.
 */
class Disassembler
{
public:
    /// The tool's full path, or empty when neither tool was found.
    static std::string findTool();
    /// Where findTool() looks, for messages ("PATH and /usr/local/cuda/bin").
    static std::string searchedPlaces();

    /// Disassembles a cubin image; an Error says why not (no tool, the tool failed).
    static Expected<std::string> sass(const std::string &cubin);
    /// Disassembles a cubin file, writing the tool's output to outputPath.
    static Status sassToFile(const std::string &cubinPath, const std::string &outputPath);
};

} // namespace kx
