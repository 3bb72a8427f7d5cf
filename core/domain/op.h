#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kx {

/// Where an op's definition came from.
enum class SourceKind { BuiltIn, KernelBench, Manual };

/// One tensor argument of an op. Dimensions are shape-symbol names ("N") or integer literals ("64").
struct TensorSpec
{
    std::string name;
    std::vector<std::string> shape;
    std::string dtype = "float32";
    /// Integer inputs: the values trials draw, [low, high) as two integers or shape symbols (class indices
    /// [0, num_classes)); empty: the default range of their dtype's fill.
    std::vector<std::string> valueRange = {};

    bool operator==(const TensorSpec &) const = default;
};

/// Bindings of shape symbols to sizes, e.g. {"N": 4096, "D": 1024}.
using ShapeSet = std::map<std::string, std::int64_t>;

/// What a candidate for this op may do and how strictly it is checked.
struct OpPolicy
{
    double atol = 1e-4;
    double rtol = 1e-4;
    bool allowLibrarySteps = false;
    std::vector<std::string> allowedLibraryOps; ///< ATen op names allowed in library steps.

    bool operator==(const OpPolicy &) const = default;
};

/// Whether an ATen op ("aten::conv2d", an overload such as "aten::conv2d.padding" too) is a convolution, which
/// cuDNN runs on the GPU: the library steps that may take their operands channels-last (see LibraryStep).
inline bool isConvolutionOp(const std::string &atenOp)
{
    const std::string name = atenOp.substr(0, atenOp.find('.'));
    for (const char *convolution :
         {"aten::conv1d", "aten::conv2d", "aten::conv3d", "aten::conv_transpose1d", "aten::conv_transpose2d",
          "aten::conv_transpose3d", "aten::_convolution", "aten::convolution"})
        if (name == convolution)
            return true;
    return false;
}

/// A PyTorch op to be turned into CUDA kernels.
struct Op
{
    std::string name; ///< Unique key, e.g. "relu" or "kb/level1/19_ReLU".
    SourceKind sourceKind = SourceKind::BuiltIn;
    std::string description;
    std::string referenceSource; ///< PyTorch text shown to people (module source or expression).
    std::vector<TensorSpec> inputs;
    std::vector<TensorSpec> outputs;
    std::vector<ShapeSet> shapeSets; ///< The first is the default; more are used for verification.
    std::string bytesMovedExpr;      ///< Minimal DRAM bytes as an expression over shape symbols.
    std::string flopsExpr;           ///< Minimal FLOPs as an expression over shape symbols.
    OpPolicy policy;
    std::string recipe; ///< JSON: what the op computes, for code generation (see OpRecipe).
    /// Base64 of a saved TorchScript module whose forward(inputs...) returns the outputs: the reference of an
    /// imported op (parameters of the original model are among the inputs). Empty for built-in ops.
    std::string referenceModule;

    bool operator==(const Op &) const = default;
};

const char *toString(SourceKind kind);
SourceKind sourceKindFromString(const std::string &text); ///< Throws std::invalid_argument.

} // namespace kx
