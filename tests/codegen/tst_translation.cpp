// Every catalog op translates into a first candidate that NVRTC compiles for sm_80 and sm_90 and whose
// launch plan resolves against every shape set; random points of each template's space do too.
#include "core/codegen/kerneltemplate.h"
#include "core/ops/builtinops.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/population.h"
#include "core/search/templateproposer.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

using namespace kx;

namespace {

// Empty when the candidate compiles for arch and its plan resolves for every shape set of op.
std::string verify(const Op &op, const std::string &source, const std::string &planText, const std::string &arch)
{
    CompileOptions options;
    options.arch = arch;
    const auto compiled = NvrtcCompiler().compile(source, options);
    if (!compiled.ok)
        return "compile (" + arch + "): " + compiled.error + "\n" + compiled.stats.log;
    const auto plan = parseLaunchPlan(planText);
    if (!plan)
        return "plan: " + plan.error().message;
    for (const auto &shapes : op.shapeSets) {
        const auto resolved = resolveLaunchPlan(*plan, op, shapes, compiled.kernels);
        if (!resolved)
            return "resolve: " + resolved.error().message;
    }
    return {};
}

// A seed per op name that stays the same across platforms and runs (FNV-1a).
std::uint64_t seedOf(const std::string &name)
{
    std::uint64_t hash = 0xcbf29ce484222325ull;
    for (const unsigned char c : name)
        hash = (hash ^ c) * 0x100000001b3ull;
    return hash;
}

// Skips a test that compiles when the build has no NVRTC (no CUDA toolkit was found).
doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

} // namespace

TEST_CASE("the catalog is complete")
{
    CHECK(builtInOps().size() >= 24);
    for (const auto &op : builtInOps()) {
        CAPTURE(op.name);
        CHECK_MESSAGE(recipeOf(op), op.name);
        CHECK_MESSAGE(op.shapeSets.size() >= 2, op.name);
        CHECK_MESSAGE((!op.bytesMovedExpr.empty() && !op.flopsExpr.empty()), op.name);
        for (const auto &shapes : op.shapeSets) {
            CHECK_MESSAGE(evaluateIntExpression(op.bytesMovedExpr, shapes), op.name);
            CHECK_MESSAGE(evaluateIntExpression(op.flopsExpr, shapes), op.name);
        }
    }
}

TEST_CASE("translates every op" * needsNvrtc())
{
    for (const auto &op : builtInOps()) {
        for (const std::string arch : {"sm_80", "sm_90"}) {
            SUBCASE((op.name + "/" + arch).c_str())
            {
                const auto candidate = translateOp(op);
                REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
                CHECK(candidate->origin == Origin::Translated);
                CHECK(candidate->source.find("__global__") != std::string::npos);
                CHECK(candidate->source.rfind("// " + op.name, 0) == 0); // readable: starts with what it is
                const std::string failure = verify(op, candidate->source, candidate->launchPlan, arch);
                CHECK_MESSAGE(failure.empty(), failure);
            }
        }
    }
}

TEST_CASE("random parameters compile" * needsNvrtc())
{
    for (const char *opName :
         {"gelu_tanh", "scale_bias", "row_argmax", "row_mean", "log_softmax", "layer_norm", "rms_norm"}) {
        SUBCASE(opName)
        {
            const Op &op = *findBuiltInOp(opName);
            const auto recipe = *recipeOf(op);
            const KernelTemplate *kernelTemplate = nullptr;
            for (const auto *candidate : kernelTemplates())
                if (candidate->supports(op, recipe))
                    kernelTemplate = candidate;
            REQUIRE(kernelTemplate);
            const auto definitions = kernelTemplate->parameters(op, recipe);
            SplitMix random(seedOf(opName));
            int checked = 0;
            for (int attempt = 0; attempt < 200 && checked < 12; ++attempt) {
                Params params;
                for (const auto &definition : definitions)
                    params[definition.name] = definition.values[random.below(definition.values.size())];
                if (!kernelTemplate->check(op, recipe, params).empty())
                    continue;
                const auto generated = kernelTemplate->generate(op, recipe, params);
                CHECK(kernelTemplate->generate(op, recipe, params).source == generated.source); // deterministic
                const std::string failure = verify(op, generated.source, generated.launchPlan, "sm_90");
                CHECK_MESSAGE(failure.empty(), failure << "\n" << generated.source);
                ++checked;
            }
            CHECK(checked >= 8);
        }
    }
}

TEST_CASE("check() rejects invalid parameters" * needsNvrtc())
{
    const Op &softmax = *findBuiltInOp("softmax");
    const auto recipe = *recipeOf(softmax);
    const auto *kernelTemplate = findKernelTemplate("softmax");
    auto params = kernelTemplate->defaults(softmax, recipe);
    CHECK(kernelTemplate->check(softmax, recipe, params).empty());
    params["block"] = 100;
    CHECK(!kernelTemplate->check(softmax, recipe, params).empty());
    params = kernelTemplate->defaults(softmax, recipe);
    params.erase("vec");
    CHECK(kernelTemplate->check(softmax, recipe, params).find("missing") != std::string::npos);

    Op odd = *findBuiltInOp("scale_bias"); // its second shape set has D = 777
    const auto *elementwise = findKernelTemplate("elementwise");
    auto vectorised = elementwise->defaults(odd, *recipeOf(odd));
    vectorised["vec"] = 4;
    CHECK(elementwise->check(odd, *recipeOf(odd), vectorised).find("multiple of 4") != std::string::npos);
}
