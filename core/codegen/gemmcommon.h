#pragma once

// What the GEMM templates (CUDA cores and tensor cores) share: the op's tensors in GEMM roles, their checks,
// and the fused epilogue they both end with.
#include "core/codegen/kerneltemplate.h"

#include <nlohmann/json.hpp>

#include <set>
#include <sstream>
#include <string>
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

/// One shape set's sizes.
struct GemmSizes
{
    long long m = 0, n = 0, k = 0;
};

/**
 * Empty when the op fits the recipe's GEMM: two float32 operands of the recipe's shapes, bias [n], epilogue
 * inputs [m, n], a single-expression epilogue, names usable in generated code (none of `reserved`), and
 * positive 32-bit sizes in every shape set. Otherwise why not, naming the template.
 */
std::string checkGemm(const Op &op, const OpRecipe &recipe, const std::set<std::string> &reserved,
                      const std::string &templateName);

/// Empty when no shape set needs more than 65535 row tiles of bm rows (the grid's y limit), otherwise why not.
std::string checkRowTiles(const Op &op, const OpRecipe &recipe, int bm);

/// M, N and K of every shape set (checkGemm() must have passed).
std::vector<GemmSizes> gemmSizes(const Op &op, const OpRecipe &recipe);

/// Names every GEMM kernel declares (tensor names must avoid them), plus the template's own.
std::set<std::string> reservedNames(std::initializer_list<const char *> templateNames);

/// "out[m, n] = epilogue(sum_k a[m, k] * b[k, n] + bias[n])"
std::string formulaComment(const OpRecipe &recipe, const GemmTensors &tensors);

/// The epilogue as a device function of the biased sum, the position and the epilogue inputs' elements.
void writeEpilogueFunction(std::ostringstream &out, const OpRecipe &recipe, const GemmTensors &tensors);

/// "epilogue(<sum> + bias[n], m, n, res[index])"
std::string epilogueCall(const GemmTensors &tensors, const std::string &sum, const std::string &index);

/// "const float *__restrict__ bias, const float *__restrict__ res, " for the kernel's parameter list.
std::string extraParameters(const GemmTensors &tensors);

/// The operand arguments (a, b) and the extra ones (bias, epilogue inputs) of a launch plan step.
nlohmann::json operandArgs(const GemmTensors &tensors);
nlohmann::json extraArgs(const GemmTensors &tensors);

} // namespace kx::gemm
