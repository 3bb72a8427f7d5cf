#pragma once

// The CUDA source of the gemm-wgmma template: the copy kernels that round the operands to TF32, and the main
// kernel in its two forms (every thread copying with cp.async, or one warpgroup issuing TMA copies for the
// warpgroups that multiply). gemmwgmmatemplate.cpp holds the genes, checks and plan.
#include "core/codegen/gemmcommon.h"

#include <sstream>

namespace kx::gemm {

/// One k slice is 32 TF32 values: 128 bytes a row, exactly one row of the 128-byte swizzle pattern that the
/// wgmma shared-memory descriptors describe.
inline constexpr int kWgmmaSliceK = 32;
inline constexpr int kWgmmaRowBytes = kWgmmaSliceK * 4;
/// Dynamic shared memory is only 16-byte aligned; the swizzle pattern repeats every 1024 bytes and needs its
/// tiles aligned to that, so the kernel rounds its base up and the plan asks for this much more.
inline constexpr int kWgmmaAlignSlack = 1024;
/// The block size and values per thread of the copy kernels.
inline constexpr int kWgmmaSplitBlock = 256, kWgmmaSplitItems = 4;

/// How the main kernel brings the operands' slices into shared memory.
enum class WgmmaLoader {
    CpAsync = 0, ///< Every thread copies 16 bytes at a time with cp.async; all warpgroups multiply.
    Tma = 1,     ///< One producer warpgroup issues the copy engine's tile copies (mbarrier-tracked ring); the others
                 ///< only multiply.
};

struct WgmmaConfig
{
    int bm = 128, bn = 128, stages = 3, products = 3, groupM = 8;
    WgmmaLoader loader = WgmmaLoader::CpAsync;
    bool directA = false, directB = false; ///< Tma, plain TF32: the copy engine reads a / b itself, not a copy.
    /// Tma only: a batch of products, one matrix per blockIdx.y; b has its own matrix per batch unless shared.
    bool batched = false, batchedB = false;

    int warpgroups() const { return bm / 64; } ///< Warpgroups that multiply: 64 rows each.
    int threads() const { return 128 * (warpgroups() + (loader == WgmmaLoader::Tma ? 1 : 0)); }
    int parts() const { return products == 3 ? 2 : 1; }
    int sums() const { return bn / 2 * (products == 3 ? 2 : 1); }
    int stageBytes() const { return parts() * (bm + bn) * kWgmmaRowBytes; }
    int sharedBytes() const { return stages * stageBytes() + kWgmmaAlignSlack; }
    /// Static shared memory beside the ring: the Tma loader's two barriers a stage.
    int barrierBytes() const { return loader == WgmmaLoader::Tma ? 16 * stages : 0; }
};

/// Names the generated source declares (an op's tensors and epilogue must not use them).
const std::set<std::string> &wgmmaReservedNames();

/// The kernels that round a ([rows, k] or [k, rows]) and b into zero-padded k-contiguous TF32 copies, one matrix
/// of a batch per blockIdx.y (split_rows_kernel) or blockIdx.z (split_transposed_kernel).
void writeWgmmaSplitKernels(std::ostringstream &out, const WgmmaConfig &config);

/// Constants, device helpers, the wgmma wrapper, the epilogue function and gemm_wgmma_kernel.
void writeWgmmaMainKernel(std::ostringstream &out, const WgmmaConfig &config, const OpRecipe &recipe,
                          const GemmTensors &tensors);

} // namespace kx::gemm
