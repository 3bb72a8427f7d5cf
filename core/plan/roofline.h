#pragma once

#include "core/domain/gpuinfo.h"
#include "core/domain/op.h"
#include "core/domain/precision.h"
#include "core/util/expected.h"

namespace kx {

/// The least time an op can take on a GPU: its minimal DRAM traffic at the measured bandwidth, or its
/// FLOPs at the peak the precision policy allows, whichever is longer. The one rule for the "impossible" flag,
/// `kx best`'s roofline fraction, the review's evidence and the plots' ceilings.
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

/// The floor on the op's first shape set (the one timed) on `gpu` under `precision`.
Expected<RooflineFloor> rooflineFloor(const Op &op, const GpuInfo &gpu, Precision precision);

/// Kernels may beat cudaMemcpy's bandwidth a little, and writes can still sit in L2 when the stop event fires.
inline constexpr double kFloorSlack = 0.8;

/// Whether a median is under the floor by more than kFloorSlack allows: what the "impossible" flag means.
bool isBelowFloor(double medianMs, const RooflineFloor &floor);

/// Dense TF32 tensor-core throughput over fp32 FMA throughput per SM and clock: 8 on sm_80 and sm_90 (A100:
/// 156 vs 19.5 TFLOP/s; H100 SXM: 495 vs 67), 2 on the other sm_8x (A10, L40S), 16 on sm_100 and later
/// (B200: about 15; later chips err high, which keeps the floor a lower bound), 1 before sm_80.
double tf32OverFp32(int major, int minor);

/// The peak a kernel may reach under a precision policy: the fp32 peak of `gpu`, times tf32OverFp32() where
/// the policy allows TF32 (a library GEMM on tensor cores outruns the fp32 peak and is not impossible).
double peakTflopsFor(const GpuInfo &gpu, Precision precision);

} // namespace kx
