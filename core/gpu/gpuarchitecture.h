#pragma once

#include "core/domain/gpuinfo.h"

namespace kx {

/// fp32 fused multiply-adds one SM retires per clock (the CUDA programming guide's throughput table):
/// 64 on sm_60, sm_7x and sm_80 (A100), 128 on sm_61/62, sm_86 and later (H100, ...).
int fp32LanesPerSm(int major, int minor);

/// Peak fp32 throughput in TFLOP/s (an FMA counts as two FLOPs).
double peakFp32Tflops(int major, int minor, int smCount, int smClockMHz);

/// Dense TF32 tensor-core throughput over fp32 FMA throughput per SM and clock: 8 on sm_80 and sm_90 (A100:
/// 156 vs 19.5 TFLOP/s; H100 SXM: 495 vs 67), 2 on the other sm_8x (A10, L40S), 16 on sm_100 and later
/// (B200: about 15; later chips err high, which keeps the roofline floor a lower bound), 1 before sm_80.
double tf32OverFp32(int major, int minor);

/// The peak a kernel may reach under a precision policy: the fp32 peak of `gpu`, times tf32OverFp32() where
/// the policy allows TF32 (a library GEMM on tensor cores outruns the fp32 peak and is not impossible).
double peakTflopsFor(const GpuInfo &gpu, bool tf32Allowed);

} // namespace kx
