// The library-GEMM template: the product as an ATen step, bias and epilogue fused into one generated kernel;
// only where the op's policy allows the call. That the result is right is checked on the GPU (tst_catalog).
#include "core/codegen/gemmlibrarytemplate.h"
#include "core/plan/launchplan.h"

#include "templatetestsupport.h"

#include <doctest/doctest.h>

using namespace kx;
using namespace kx::test;

namespace {

const GemmLibraryTemplate kTemplate;

Op allowing(Op op, const std::string &library)
{
    op.policy.allowLibrarySteps = true;
    op.policy.allowedLibraryOps = {library};
    return op;
}

} // namespace

TEST_CASE("needs the op's permission for the library call it makes")
{
    const Op &square = gemmTestOp("matmul_square");
    CHECK(kTemplate.check(square, recipeFor(square), kTemplate.defaults(square, recipeFor(square)))
          == std::string("the gemm-library template runs the product as a library step: the op's policy must allow "
                         "aten::mm"));
    const Op linear = allowing(gemmTestOp("linear_bias_relu"), "aten::mm"); // b is [n, k]: that is aten::linear
    CHECK(kTemplate.check(linear, recipeFor(linear), kTemplate.defaults(linear, recipeFor(linear)))
          == std::string("the gemm-library template runs the product as a library step: the op's policy must allow "
                         "aten::linear"));
    const Op allowed = allowing(gemmTestOp("linear_bias_relu"), "aten::linear");
    CHECK(kTemplate.check(allowed, recipeFor(allowed), kTemplate.defaults(allowed, recipeFor(allowed)))
          == std::string());
}

TEST_CASE("the plan runs the product into scratch, then one epilogue kernel")
{
    const Op op = allowing(gemmTestOp("matmul_scale_residual_clamp"), "aten::mm");
    const Params params = with(kTemplate.defaults(op, recipeFor(op)), {{"block", 128}, {"items", 4}});
    const GeneratedKernel kernel = kTemplate.generate(op, recipeFor(op), params);
    const auto plan = parseLaunchPlan(kernel.launchPlan);
    REQUIRE_MESSAGE(plan, kernel.source);
    const ShapeSet &odd = op.shapeSets[1]; // M 999, N 500
    const auto resolved = resolveLaunchPlan(*plan, op, odd, parseKernelSignatures(kernel.source));
    REQUIRE_MESSAGE(resolved, (resolved ? "" : resolved.error().message));
    REQUIRE(resolved->steps.size() == std::size_t(2));
    CHECK(std::holds_alternative<ResolvedLibraryStep>(resolved->steps[0]));
    CHECK(std::get<ResolvedLibraryStep>(resolved->steps[0]).op == std::string("aten::mm"));
    const auto &epilogue = std::get<ResolvedKernelStep>(resolved->steps[1]);
    CHECK(epilogue.kernel == std::string("gemm_epilogue_kernel"));
    CHECK(epilogue.grid[0] * epilogue.block[0] * 4 >= std::int64_t(999 * 500));
    CHECK(epilogue.args[1].name == std::string("res"));
    REQUIRE(resolved->scratchBytes.size() == std::size_t(1));
    CHECK(resolved->scratchBytes.front().second == std::int64_t(4 * 999 * 500));
    CHECK(kernel.source.find("fminf(fmaxf(acc * 2.0f + res, -1.0f), 1.0f)") != std::string::npos);
}

TEST_CASE("every combination compiles and resolves" * needsNvrtc())
{
    const std::vector<Op> ops{allowing(gemmTestOp("linear_bias_relu"), "aten::linear"),
                              allowing(gemmTestOp("matmul_scale_residual_clamp"), "aten::mm")};
    const auto verified = verifyWholeSpace(kTemplate, ops, 5);
    CHECK_MESSAGE(verified.problem.empty(), verified.problem);
    CHECK(verified.compiled == 2 * 4 * 3);
    CHECK(verified.rejected == 0);
}
