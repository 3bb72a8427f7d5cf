#pragma once

// What the GEMM templates (CUDA cores and tensor cores) share: the op's tensors in GEMM roles, their checks,
// and the fused epilogue they both end with.
#include "core/codegen/kerneltemplate.h"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kx::gemm {

/// Dynamic shared memory every GPU from sm_80 on grants a block (sm_86/sm_89 stop at 99 KiB).
inline constexpr int kMaxSharedBytes = 99 * 1024;

/// The op's tensors in GEMM roles: the two operands are the inputs that are neither bias nor epilogue inputs.
struct GemmTensors
{
    const TensorSpec *a = nullptr;
    const TensorSpec *b = nullptr;
    const TensorSpec *bias = nullptr;
    std::vector<const TensorSpec *> epilogueInputs;
    const TensorSpec *out = nullptr;
    int operands = 0; ///< Inputs that are neither bias nor epilogue inputs.
};

GemmTensors gemmTensors(const Op &op, const OpRecipe &recipe);

/// One shape set's sizes: m counts the rows of the product (the leading dimensions folded in), batch the matrices.
struct GemmSizes
{
    long long m = 0, n = 0, k = 0, batch = 1;
};

/**
 * The layouts a template implements beyond the plain product (b as [k, n] or as [n, k]): each is opt-in, so a
 * template that has not opted in refuses such a recipe with the reason instead of computing something else.
 */
struct GemmLayouts
{
    bool transposedA = false; ///< a given as [k, m]
    bool batched = false;     ///< a batch of products (b batched or shared)
    bool foldedRows = false;  ///< leading dimensions folded into the rows
    bool triangular = false;  ///< an upper or lower triangle of the output, zeros elsewhere

    static GemmLayouts all() { return {true, true, true, true}; }
};

/**
 * Empty when the op fits the recipe's GEMM: two float32 operands of the recipe's shapes (with the batch and
 * leading dimensions, a and b transposed as it says), bias [n], epilogue inputs of the output's shape, a
 * single-expression epilogue, names usable in generated code (none of `reserved`), positive 32-bit sizes in every
 * shape set, and only layouts the template supports. Otherwise why not, naming the template.
 */
std::string checkGemm(const Op &op, const OpRecipe &recipe, const std::set<std::string> &reserved,
                      const std::string &templateName, const GemmLayouts &supported = {});

/// The shapes the recipe needs of a, of b (batched; a shared b has no batch dimension) and of the output.
std::vector<std::string> aShape(const OpRecipe &recipe);
std::vector<std::string> bShape(const OpRecipe &recipe);
std::vector<std::string> outShape(const OpRecipe &recipe);

/// Whether each batch has its own b (b has the batch dimension); false for a b that every batch shares.
bool batchedB(const OpRecipe &recipe, const GemmTensors &tensors);

/// The rows of the product as a plan expression: "M", or "L * M" with leading dimensions folded in.
std::string rowsExpression(const OpRecipe &recipe);

/// A block tile of the output, bm x bn.
struct TileShape
{
    int bm = 0, bn = 0;
};

/**
 * Which of `tiles` (largest first) a template's defaults take on the op's first shape set: the first that gives a
 * GPU of 100-150 SMs about two blocks per SM (the blocks of every matrix of a batch counted) and is not twice as
 * wide or tall as the output (a 128 x 128 tile leaves most SMs idle on a 512 x 1024 output); the last when none
 * does, the first without shape sets.
 */
std::size_t defaultTileIndex(const std::vector<TileShape> &tiles, const std::vector<GemmSizes> &sizes);

/// Empty when no shape set needs more than 65535 row tiles of bm rows (the grid's y limit), otherwise why not.
std::string checkRowTiles(const Op &op, const OpRecipe &recipe, int bm);

/// M, N and K of every shape set (checkGemm() must have passed).
std::vector<GemmSizes> gemmSizes(const Op &op, const OpRecipe &recipe);

/// Names every GEMM kernel declares (tensor names must avoid them), plus the template's own.
std::set<std::string> reservedNames(std::initializer_list<const char *> templateNames);

/// "out[m, n] = epilogue(sum_k a[m, k] * b[k, n] + bias[n])", with the batch, the folded rows and the triangle.
std::string formulaComment(const OpRecipe &recipe, const GemmTensors &tensors);

/**
 * For a batched recipe: the lines that move a, b (unless shared), the output and the epilogue inputs to the matrices
 * of batch `batch` (an expression of the kernel), with M, N and K in scope.
 */
std::string batchOffsets(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &batch,
                         const std::string &indent);
/// The same for the output and the epilogue inputs only (operands read through tensor maps, which take the batch
/// as a coordinate).
std::string batchOutputOffsets(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &batch,
                               const std::string &indent);

/**
 * For a triangular recipe: keeps(m, n), whether the output keeps element (m, n), and where @p tiled,
 * zeroTile(rowBase, colBase), whether the BM x BN tile there lies wholly in the zero part (its product need not be
 * computed). Nothing for other recipes.
 */
void writeTriangleFunctions(std::ostringstream &out, const OpRecipe &recipe, bool tiled = true);

/// The value stored at (m, n): epilogueCall(), or zero outside a triangular recipe's triangle.
std::string storedValue(const OpRecipe &recipe, const GemmTensors &tensors, const std::string &sum,
                        const std::string &index);

/// The epilogue as a device function of the biased sum, the position and the epilogue inputs' elements.
void writeEpilogueFunction(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors);

/// "epilogue(<sum> + bias[n], m, n, res[index])"
std::string epilogueCall(const GemmTensors &tensors, const std::string &sum, const std::string &index);

/**
 * Split-K, for outputs of few tiles and a long k (KernelBench's 256 x 256 with k = 2^19): the product kernel's
 * blocks each sum one of `splits` k ranges into their own copy of the output in the scratch buffer
 * kSplitKPartial, and gemm_splitk_reduce adds the copies of each element in a fixed order (the same bits every
 * run, no atomics) and applies the epilogue and the triangle: one thread an element.
 */
inline constexpr const char *kSplitKPartial = "partial";
/// The k ranges a default takes: enough blocks for two waves of a GPU of about 132 SMs where the tiles alone leave
/// most SMs idle, with k ranges of at least 8 slices of bk; 1 where the tiles fill the GPU or k is short.
int defaultSplitK(const GemmSizes &size, int bm, int bn, int bk);
void writeSplitKReduceKernel(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors, int splits);
/// The elements of the output (all matrices of the batch) as a plan expression: one copy of the output.
std::string outputElements(const OpRecipe &recipe);
/// The plan step of gemm_splitk_reduce, and the scratch buffer of the copies.
nlohmann::json splitKReduceStep(const OpRecipe &recipe, const GemmTensors &tensors);
std::pair<std::string, std::string> splitKScratch(const OpRecipe &recipe, int splits);

/// "const float *__restrict__ bias, const float *__restrict__ res, " for the kernel's parameter list.
std::string extraParameters(const GemmTensors &tensors);

/// The operand arguments (a, b) and the extra ones (bias, epilogue inputs) of a launch plan step.
nlohmann::json operandArgs(const GemmTensors &tensors);
nlohmann::json extraArgs(const GemmTensors &tensors);

} // namespace kx::gemm
