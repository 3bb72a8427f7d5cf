#include "gputestsupport.h"

#include "core/domain/candidate.h"
#include "core/eval/workerpool.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

namespace kx::test {

GpuEvaluator &gpuEvaluator()
{
    static GpuEvaluator evaluator(0);
    return evaluator;
}

bool skipWithoutGpu()
{
    const auto reason = gpuEvaluator().unavailableReason();
    if (!reason.empty()) {
        std::cout << "no GPU: skipped (" << reason << ")\n";
        std::exit(77);
    }
    return true;
}

std::string gpuArch()
{
    return archForComputeCapability(gpuEvaluator().describe().computeCapability);
}

EvalSettings quickSettings()
{
    EvalSettings settings;
    settings.warmupRuns = 3;
    settings.timedRuns = 20;
    settings.seed = 7;
    return settings;
}

EvaluateOutcome evaluateCandidate(const Op &op, const Candidate &candidate)
{
    auto request = makeRequest(op, candidate.source, candidate.launchPlan);
    request.candidate = candidate;
    return gpuEvaluator().evaluate(request);
}

EvaluateRequest makeRequest(const Op &op, const std::string &source, const std::string &plan,
                            const EvalSettings &settings)
{
    CompileOptions options;
    options.arch = gpuArch();
    options.wantPtx = false;
    const auto compiled = NvrtcCompiler().compile(source, options);
    INFO("NVRTC: ", compiled.stats.log);
    REQUIRE(compiled.ok);

    return compiledRequest(op, source, plan, options.arch, compiled.cubin, compiled.stats, settings);
}

std::string elementwisePlan(const std::string &kernel, const std::string &argsJson, const std::string &scratchJson,
                            const std::string &sharedBytes)
{
    return "{\"scratch\": " + scratchJson + ", \"steps\": [{\"kernel\": \"" + kernel
           + "\", \"grid\": [\"ceil_div(N, 256)\"], \"block\": [\"256\"], \"shared\": \"" + sharedBytes
           + "\", \"args\": " + argsJson + "}]}";
}

std::string statusText(EvalStatus status)
{
    return toString(status);
}

const Op &builtIn(const std::string &name)
{
    const Op *op = findBuiltInOp(name);
    REQUIRE_MESSAGE(op != nullptr, "no built-in op ", name);
    return *op;
}

void requireCorrect(const EvaluateOutcome &outcome)
{
    INFO("message: ", outcome.evaluation.message);
    REQUIRE(statusText(outcome.evaluation.status) == statusText(EvalStatus::Correct));
    CHECK_FALSE(outcome.workerMustExit);
}

} // namespace kx::test
