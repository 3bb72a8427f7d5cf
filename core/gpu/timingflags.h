#pragma once

#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/precision.h"
#include "core/eval/evalrequest.h"
#include "core/plan/roofline.h"
#include "core/util/expected.h"

#include <optional>
#include <vector>

namespace kx {

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

} // namespace kx
