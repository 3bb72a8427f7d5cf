#include "core/codegen/gemmlibrarytemplate.h"

#include "core/codegen/codegenutil.h"
#include "core/codegen/gemmcommon.h"

#include <algorithm>
#include <sstream>

namespace kx {

using namespace codegen;
using namespace gemm;

namespace {

const std::set<std::string> &reserved()
{
    static const std::set<std::string> names =
        reservedNames({"product", "total", "first", "u", "BLOCK", "ITEMS", "batches", "gemm_epilogue_kernel"});
    return names;
}

// An operand of the library product: a folded a is seen as one [rows, k] matrix, and a transposed operand as the
// transpose of its last two dimensions (a view: the library reads it in place).
nlohmann::json operandArg(const std::string &name, bool transposed, const std::vector<std::string> &shape = {})
{
    nlohmann::json arg = inputArg(name);
    if (!shape.empty())
        arg["shape"] = shape;
    if (transposed)
        arg["transposed"] = true;
    return arg;
}

} // namespace

bool GemmLibraryTemplate::supports(const Op &, const OpRecipe &recipe) const
{
    return recipe.family == "gemm";
}

std::vector<ParamDef> GemmLibraryTemplate::parameters(const Op &, const OpRecipe &) const
{
    return {{"block", {128, 256, 512, 1024}, "epilogue block size"}, {"items", {1, 2, 4}, "elements per thread"}};
}

Params GemmLibraryTemplate::defaults(const Op &, const OpRecipe &) const
{
    return {{"block", 256}, {"items", 1}};
}

std::string GemmLibraryTemplate::check(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (!supports(op, recipe))
        return "the gemm-library template needs a gemm recipe";
    if (auto problem = checkParams(params, parameters(op, recipe)); !problem.empty())
        return problem;
    const std::string library = gemmLibraryOp(recipe);
    const auto &allowed = op.policy.allowedLibraryOps;
    if (!op.policy.allowLibrarySteps || std::find(allowed.begin(), allowed.end(), library) == allowed.end())
        return "the gemm-library template runs the product as a library step: the op's policy must allow " + library;
    return checkGemm(op, recipe, reserved(), name(), GemmLayouts::all());
}

GeneratedKernel GemmLibraryTemplate::generate(const Op &op, const OpRecipe &recipe, const Params &params) const
{
    if (const auto problem = check(op, recipe, params); !problem.empty())
        return rejectedKernel(name(), problem);
    const int block = param(params, "block", 256);
    const int items = param(params, "items", 1);
    const GemmTensors tensors = gemmTensors(op, recipe);

    const bool batched = isBatched(recipe);
    const bool linear = gemmLibraryOp(recipe) == "aten::linear"; // takes b as [n, k] itself
    const std::string aSeen = tensors.a->name + (recipe.transposeA ? ".T" : "");
    const std::string bSeen = tensors.b->name + (recipe.transposeB && !linear ? ".T" : "");

    std::ostringstream out;
    out << headerComment(op, *this, params, parameters(op, recipe));
    out << "// " << formulaComment(recipe, tensors) << "\n"
        << "// Step 1 (library): product = " << gemmLibraryOp(recipe) << "(" << aSeen << ", " << bSeen
        << ") into a scratch buffer [" << (batched ? "batches, " : "") << "M, N]"
        << (recipe.transposeA || (recipe.transposeB && !linear) ? " (.T: a transposed view, no copy)" : "")
        << ".\n"
        << "// Step 2 (this kernel): everything after the product in one pass over it.\n\n"
        << "constexpr int BLOCK = " << block << ", ITEMS = " << items << ";\n";
    writeEpilogueFunction(out, recipe, tensors);
    writeTriangleFunctions(out, recipe, false);
    out << "\n// product is only read; plan scratch buffers are passed as non-const pointers.\n"
        << "extern \"C\" __global__ void __launch_bounds__(BLOCK)\n"
        << "gemm_epilogue_kernel(float *__restrict__ product, " << extraParameters(tensors) << "float *__restrict__ "
        << tensors.out->name << ", int M, int N" << (batched ? ", int batches" : "") << ")\n{\n"
        << "    // Each thread handles ITEMS elements, BLOCK apart (coalesced).\n"
        << "    const long long total = (long long)" << (batched ? "batches * " : "") << "M * N;\n"
        << "    const long long first = (long long)blockIdx.x * BLOCK * ITEMS + threadIdx.x;\n"
        << "#pragma unroll\n"
        << "    for (int u = 0; u < ITEMS; ++u) {\n"
        << "        const long long i = first + (long long)u * BLOCK;\n"
        << "        if (i >= total)\n"
        << "            break;\n"
        << "        const int m = (int)(i / N" << (batched ? " % M" : "") << "), n = (int)(i % N);\n"
        << "        " << tensors.out->name << "[i] = " << storedValue(recipe, tensors, "product[i]", "i") << ";\n"
        << "    }\n}\n";

    const std::string rows = rowsExpression(recipe);
    const auto foldedShape =
        recipe.leading.empty() ? std::vector<std::string>{} : std::vector<std::string>{rows, recipe.k};
    const auto product = libraryStep(gemmLibraryOp(recipe),
                                     nlohmann::json::array({operandArg(tensors.a->name, recipe.transposeA, foldedShape),
                                                            operandArg(tensors.b->name, recipe.transposeB && !linear),
                                                            scratchArg("product")}));
    nlohmann::json args = nlohmann::json::array({scratchArg("product")});
    for (const auto &extra : extraArgs(tensors))
        args.push_back(extra);
    args.push_back(outputArg(tensors.out->name));
    args.push_back(intArg(rows));
    args.push_back(intArg(recipe.n));
    if (batched)
        args.push_back(intArg(recipe.batch));
    const std::string elements = (batched ? recipe.batch + " * " : std::string()) + rows + " * " + recipe.n;
    const auto epilogueStep = kernelStep(
        "gemm_epilogue_kernel", {"ceil_div(" + elements + ", " + text(block * items) + ")"}, {text(block)}, args);
    return {out.str(), planJson(nlohmann::json::array({product, epilogueStep}), {{"product", "4 * " + elements}})};
}

} // namespace kx
