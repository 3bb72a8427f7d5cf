#pragma once

// The sliding-window stages of a pipeline: direct convolution (forward and transposed) and pooling.
#include "core/codegen/pipeline.h"
#include "core/domain/op.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx::windowstages {

/// The size of spatial dimension dim of a window stage's output for an input of size input, by PyTorch's
/// formulas (convolution, transposed convolution, pooling with ceil_mode); nullopt when it would be below 1.
std::optional<std::int64_t> outputSize(const PipelineStage &stage, std::size_t dim, std::int64_t input);

/// The knobs of the generated window kernels, from the pipeline's parameters.
struct Knobs
{
    int block = 256;  ///< Threads per block.
    int items = 1;    ///< Outputs per thread (grid-stride steps).
    int channels = 1; ///< Convolution: output channels per thread.
    int unroll = 4;   ///< Unrolling of the innermost kernel-tap loop.
};

/// The output channels per group of a conv stage in every shape set (for the channels-per-thread knob).
std::vector<std::int64_t> outputChannelsPerGroup(const PipelineStage &stage, const std::vector<ShapeSet> &shapeSets);

/// Empty when a conv or pool stage can be generated for every shape set with these knobs, otherwise why not
/// (naming the parameter or dimension at fault).
std::string check(const PipelineStage &stage, const std::vector<ShapeSet> &shapeSets, const Knobs &knobs);

/// The stage's kernel, readable, named stage<index + 1>_conv or stage<index + 1>_pool.
std::string kernelSource(const PipelineStage &stage, std::size_t index, const Knobs &knobs);
std::string kernelName(const PipelineStage &stage, std::size_t index);

/// The integer arguments after the tensors (plan expressions), and the number of threads the kernel covers.
std::vector<std::string> sizeArguments(const PipelineStage &stage);
std::string threadCount(const PipelineStage &stage, const Knobs &knobs);

} // namespace kx::windowstages
