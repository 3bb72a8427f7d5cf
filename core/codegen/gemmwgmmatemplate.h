#pragma once

#include "core/codegen/kerneltemplate.h"

namespace kx {

/**
 * Matrix multiply on Hopper's warpgroup tensor-core instructions (wgmma, TF32, fp32 sums), for sm_90a.
 * Two small kernels first round the operands to TF32 (and, for 3xTF32, their TF32 remainders) into zero-padded
 * k-contiguous copies, b transposed where it is [k, n] and a where it is [k, m] (leading dimensions of a fold into
 * its rows; triangles are refused); the main kernel then stages 32-wide k slices of those
 * copies with cp.async into 128-byte-swizzled shared tiles, which the wgmma instructions read directly, and
 * ends with the fused epilogue on the accumulators in registers. Under 3xTF32 each slice's three products
 * (small * big, big * small, big * big) go into a fresh sum that the CUDA cores add to the accumulators, rounded
 * to nearest. The slices reach shared memory either by cp.async from every thread, or (loader 1) by the copy
 * engine's tile copies (TMA), which one producer warpgroup issues into an mbarrier-tracked ring while the others
 * only multiply; plain TF32 then reads k-contiguous operands in place, without copies. The TMA loader also takes
 * batches (torch.bmm): blockIdx.y is the matrix, the batched operands' maps (or their copies, padded matrix by
 * matrix) are 3-D with the batch as their outermost coordinate, a shared b keeps its 2-D map; the cp.async loader
 * refuses them. Tunes the block tile (one to
 * three warpgroups of 64 rows), its width, the ring's depth, the loader and the order in which blocks walk the
 * output. The source is written by gemmwgmmasource.h.
 */
class GemmWgmmaTemplate : public KernelTemplate
{
public:
    std::string name() const override { return "gemm-wgmma"; }
    bool supports(const Op &op, const OpRecipe &recipe) const override;
    std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const override;
    Params defaults(const Op &op, const OpRecipe &recipe) const override;
    Params tf32Changes(const Op &op, const OpRecipe &recipe) const override;
    std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const override;
    GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const override;
};

} // namespace kx
