#pragma once

#include "core/domain/gpuinfo.h"
#include "core/domain/precision.h"
#include "core/domain/timing.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// What a user would run instead of a candidate.
enum class BaselineKind {
    Eager,    ///< The op's PyTorch code as it is (LibTorch in the worker).
    Inductor, ///< torch.compile's Inductor: an AOTInductor package, or the compiled module in Python.
};

const char *toString(BaselineKind kind);
BaselineKind baselineKindFromString(const std::string &text); ///< Throws std::invalid_argument.

/// How a baseline was run and timed (recorded with every measurement).
namespace baselinemethod {
inline constexpr const char *kLibTorchEager = "libtorch-eager"; ///< The worker's reference, eager LibTorch.
inline constexpr const char *kAotiPackage = "aoti-package";     ///< An AOTInductor package, loaded in C++.
inline constexpr const char *kTorchCompile = "torch-compile";   ///< torch.compile, timed in Python.
} // namespace baselinemethod

/**
 * One measurement of a baseline on one GPU, timed like candidates (same inputs, L2 flush, warmups, CUDA
 * events, median of at least 100 runs unless the time budget cuts them) and checked against the fp32
 * reference. A measurement that could not be made has an error and no samples: the evaluation that refers
 * to it says why there is no such number.
 */
struct BaselineMeasurement
{
    std::int64_t id = 0; ///< Archive row id (0 until stored).
    std::string uid;     ///< Stable identity, given where it was measured.
    BaselineKind kind = BaselineKind::Eager;
    std::string method; ///< See baselinemethod.
    std::string opName;
    std::optional<std::int64_t> runId;
    GpuInfo gpu;
    Precision precision = Precision::Fp32;
    int shapeSet = 0; ///< Index into the op's shape sets (timing uses the first).
    TimingSummary timing;
    std::vector<double> samplesMs;
    std::vector<double> wallSamplesMs;
    double maxAbsError = 0; ///< Against the fp32 reference (TF32 shows here under tf32).
    double maxRelError = 0;
    /// The median's change against the first measurement of the same run, GPU and kind, in percent (0 for the
    /// first): how much the baseline drifted while the run went on.
    double driftPercent = 0;
    std::string error;   ///< Non-empty: no usable measurement, and why.
    std::string details; ///< JSON: package, compile seconds, versions, the Python eager time ...
    std::int64_t createdAtMs = 0;

    bool usable() const { return error.empty() && timing.runs > 0 && timing.medianMs > 0; }
    bool operator==(const BaselineMeasurement &) const = default;
};

/**
 * How a kernel stands against the two baselines, in words the CLI and the GUI share: "beats eager and Inductor",
 * "beats eager, loses to Inductor", "loses to eager, beats Inductor", "loses to eager and Inductor", or with
 * "(no Inductor time)" when torch.compile was not measured. Speedups are baseline time over kernel time.
 */
std::string standingText(double speedupOverEager, std::optional<double> speedupOverInductor);

/// The baseline of a kind among measurements (nullptr when there is none).
const BaselineMeasurement *findBaseline(const std::vector<BaselineMeasurement> &baselines, BaselineKind kind);

} // namespace kx
