#pragma once

namespace kx {

/// fp32 fused multiply-adds one SM retires per clock (the CUDA programming guide's throughput table):
/// 64 on sm_60, sm_7x and sm_80 (A100), 128 on sm_61/62, sm_86 and later (H100, ...).
int fp32LanesPerSm(int major, int minor);

/// Peak fp32 throughput in TFLOP/s (an FMA counts as two FLOPs).
double peakFp32Tflops(int major, int minor, int smCount, int smClockMHz);

} // namespace kx
