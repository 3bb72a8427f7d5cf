#pragma once

// Scaffolding shared by the code template suites: test ops, real NVRTC compiles with plan resolution, and
// walks through a template's parameter space.
#include "core/codegen/kerneltemplate.h"
#include "core/plan/nvrtccompiler.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

namespace kx::test {

/// Test case decorator: skips a test that compiles when the build has no NVRTC (no CUDA toolkit was found when
/// it was configured), e.g. TEST_CASE("..." * needsNvrtc()).
inline doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

TensorSpec tensor(const std::string &name, std::vector<std::string> shape, const std::string &dtype = "float32");

/// The op's recipe; a bad recipe is a mistake in the test and throws.
OpRecipe recipeFor(const Op &op);

/// Generates, compiles with NVRTC and resolves the plan against every shape set; empty when all is well.
std::string verifyCandidate(const KernelTemplate &kernelTemplate, const Op &op, const Params &params,
                            const std::string &arch);

/// Every combination of the parameter space, in a seeded random order.
std::vector<Params> shuffledSpace(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed);

/// The combinations of shuffledSpace() that check() accepts.
std::vector<Params> validSpace(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed);

/// What verifying every combination of a parameter space found.
struct SpaceVerification
{
    int compiled = 0;
    int rejected = 0;    ///< Combinations check() refuses (not compiled).
    std::string problem; ///< The first failure; empty when there was none.
};

/// Verifies every combination of each op's space that check() accepts, in shuffledSpace() order, alternating
/// sm_80 and sm_90; stops at the first failure.
SpaceVerification verifyWholeSpace(const KernelTemplate &kernelTemplate, const std::vector<Op> &ops, unsigned seed);

/// A row of a table over ops and architectures.
struct OpAndArch
{
    std::string name;   ///< "op arch", the subcase's name.
    std::size_t op = 0; ///< An index into the ops.
    std::string arch;
};

/// A row for each op on sm_80 and on sm_90.
std::vector<OpAndArch> opAndArchRows(const std::vector<Op> &ops);

/// Up to count distinct valid parameter combinations drawn uniformly from the parameter space with a fixed seed.
std::vector<Params> sampleValid(const KernelTemplate &kernelTemplate, const Op &op, unsigned seed, int count);

/// For each op (seeds counting up from seed): perOp sampled variants and the defaults, each generated, compiled for
/// sm_80 and sm_90 in turn and resolved, with a check each; returns how many were compiled.
int checkSampledVariantsCompile(const KernelTemplate &kernelTemplate, const std::vector<Op> &ops, unsigned seed,
                                int perOp);

/// LayerNorm with weight and bias over rows of x [N, D] (eps 1e-5), and RMSNorm with a weight over rows of
/// x [R, C] (eps 1e-6), as the norm template suites use them with shape sets of their own.
Op layerNormTestOp(const std::string &name, std::vector<ShapeSet> shapeSets);
Op rmsNormTestOp(const std::string &name, std::vector<ShapeSet> shapeSets);

/// The GEMM ops the gemm template suites share (square, tall-skinny, linear with bias, residual epilogue); each has
/// a shape set whose sizes are not multiples of any tile.
std::vector<Op> gemmTestOps();
const Op &gemmTestOp(const std::string &name);

/// GEMM ops of the layouts beyond the plain product, one or two layouts each, with their library call allowed:
/// matmul_transposed_a, matmul_transposed_both, bmm_residual (a b for each batch, an epilogue input),
/// bmm_transposed_a_shared_b (each [k, m] matrix of a by one b, bias), matmul_folded (a [L, M, K] by a b given as
/// [N, K]), matmul_upper (triu, not square) and bmm_lower_transposed_b (tril with diagonal -3 of a batch). Each has
/// a shape set whose sizes are not multiples of any tile.
std::vector<Op> gemmLayoutTestOps();
const Op &gemmLayoutTestOp(const std::string &name);

/// The lines "label (name) = value" of params that source's header comment does not state, joined by newlines;
/// empty when it states every parameter of the template.
std::string unstatedParameters(const KernelTemplate &kernelTemplate, const Op &op, const Params &params,
                               const std::string &source);

/// params with the values in changes set.
Params with(Params params, const Params &changes);

/// params changed by "name=value,...": "name=value" sets a parameter, "-name" removes one.
Params withChanges(Params params, const std::string &changes);

} // namespace kx::test
