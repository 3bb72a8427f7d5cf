#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/precision.h"
#include "core/eval/evalrequest.h"
#include "core/util/expected.h"

#include <optional>
#include <vector>

namespace kx {

/// The least time an op can take on a GPU: its minimal DRAM traffic at the measured bandwidth, or its
/// FLOPs at the fp32 peak, whichever is longer.
struct RooflineFloor
{
    double floorMs = 0;
    double bytes = 0;
    double flops = 0;
    double bandwidthGBs = 0;
    double peakTflops = 0;
};

/// Evaluates the op's bytesMoved and flops expressions for these shapes (an empty expression counts 0).
Expected<RooflineFloor> rooflineFloor(const Op &op, const ShapeSet &shapes, double bandwidthGBs, double peakTflops);

/**
 * How many products each output sums: the op's FLOPs over two per output element, at least 1 (elementwise ops
 * give about 1, a GEMM its K, a convolution C_in times the kernel's size); 1 when the op's cost expressions or
 * output shapes do not evaluate on these shapes. The TF32 tolerance grows with it (see toleranceFor()).
 */
double reductionLength(const Op &op, const ShapeSet &shapes);

/// The tolerance a candidate's (or a baseline's) outputs are checked with on these shapes.
Tolerance checkTolerance(const Op &op, const EvalSettings &settings, const ShapeSet &shapes);

/// Everything the timing flags look at.
struct TimingEvidence
{
    TimingSummary candidate;
    TimingSummary baseline;
    double speedup = 0;
    std::optional<RooflineFloor> floor;
};

/**
 * Flags for a correct candidate's timing:
 * - "impossible": its median is under kFloorSlack times the roofline floor;
 * - "suspicious": speedup above settings.suspiciousSpeedup, or GPU event times that disagree with the
 *   host's wall clock by more than the harness itself explains (measured on the reference).
 * Each flag carries its numbers as JSON evidence.
 */
std::vector<Flag> timingFlags(const TimingEvidence &evidence, const EvalSettings &settings);

/// Kernels may beat cudaMemcpy's bandwidth a little, and writes can still sit in L2 when the stop event fires.
inline constexpr double kFloorSlack = 0.8;

} // namespace kx
