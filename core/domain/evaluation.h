#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kx {

/// The GPU an evaluation ran on and its software environment (reproducibility).
struct GpuInfo
{
    std::string name;                       ///< e.g. "NVIDIA H100 80GB HBM3".
    std::string uuid;
    std::string computeCapability;          ///< e.g. "9.0".
    int smCount = 0;
    std::int64_t memoryBytes = 0;
    std::int64_t l2Bytes = 0;
    int smClockMHz = 0;
    int memoryClockMHz = 0;
    std::string driverVersion;
    std::string cudaRuntimeVersion;
    std::string nvrtcVersion;
    std::string torchVersion;
    double measuredBandwidthGBs = 0;        ///< Peak DRAM bandwidth from the worker's copy benchmark.
    double peakTflops = 0;                  ///< fp32 peak, from SM count and clock (0 when unknown).

    /// Stable key of the hardware and software identity (name, capability, driver, runtime versions).
    std::string fingerprint() const;

    bool operator==(const GpuInfo &) const = default;
};

/// Outcome of one evaluation.
enum class EvalStatus {
    Correct,        ///< Compiled, ran, matched the reference on every trial.
    Incorrect,      ///< Ran, but an output or input check failed.
    CompileError,   ///< NVRTC rejected it.
    PlanError,      ///< The launch plan was invalid; nothing was launched.
    LaunchError,    ///< A launch failed (bad config, too much shared memory) without killing the context.
    Fault,          ///< Sticky CUDA error (illegal address ...); the worker was restarted.
    Timeout,        ///< It hung; the worker was killed and restarted.
    Crashed,        ///< The worker died for another reason.
};

struct CompileStats
{
    int registers = 0;
    int spillBytes = 0;                     ///< Local memory (stack frame + spills), bytes per thread.
    int staticSharedBytes = 0;
    double compileMs = 0;
    std::string log;

    bool operator==(const CompileStats &) const = default;
};

struct CorrectnessReport
{
    int trials = 0;
    int shapeSets = 0;
    double maxAbsError = 0;
    double maxRelError = 0;
    std::int64_t mismatches = 0;
    std::vector<std::string> checksPassed;  ///< e.g. "inputs-unchanged", "deterministic", "timed-outputs".
    std::string failure;                    ///< Empty when correct; otherwise which check failed and how.

    bool operator==(const CorrectnessReport &) const = default;
};

struct TimingSummary
{
    double medianMs = 0;
    double iqrMs = 0;
    double minMs = 0;
    double wallMedianMs = 0;                ///< Host wall-clock cross-check per run.
    int runs = 0;

    bool operator==(const TimingSummary &) const = default;
};

/// A warning attached to an evaluation, with the numbers that justify it.
struct Flag
{
    std::string kind;                       ///< "impossible", "suspicious", "input-insensitive", ...
    std::string evidence;                   ///< JSON text with the numbers.

    bool operator==(const Flag &) const = default;
};

struct Evaluation
{
    std::int64_t id = 0;                    ///< Archive row id (0 until stored).
    std::string candidateId;
    std::optional<std::int64_t> runId;
    GpuInfo gpu;
    EvalStatus status = EvalStatus::Crashed;
    std::string message;                    ///< Short human-readable outcome.
    CompileStats compile;
    CorrectnessReport correctness;
    std::vector<double> samplesMs;          ///< Every timed run of the candidate.
    std::vector<double> wallSamplesMs;      ///< The same runs on the host's wall clock (up to a device sync).
    TimingSummary timing;
    std::vector<double> baselineSamplesMs;  ///< The LibTorch reference, measured the same way.
    std::vector<double> baselineWallSamplesMs;
    TimingSummary baseline;
    double speedup = 0;                     ///< baseline.medianMs / timing.medianMs (0 when not correct).
    std::vector<Flag> flags;
    std::int64_t createdAtMs = 0;

    bool operator==(const Evaluation &) const = default;
};

const char *toString(EvalStatus status);
EvalStatus evalStatusFromString(const std::string &text); ///< Throws std::invalid_argument.

/// Median, interquartile range and minimum of samples (empty input gives zeros).
TimingSummary summarize(std::vector<double> samples);

} // namespace kx
