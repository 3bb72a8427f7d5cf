// Every built-in op's first candidate (its translation) verifies on the GPU against LibTorch.
#include "gputestsupport.h"

#include "core/ops/builtinops.h"
#include "core/search/templateproposer.h"

#include <doctest/doctest.h>

#include <cstdio>

using namespace kx;

TEST_CASE("every catalog op's translation verifies on the GPU")
{
    if (!test::skipWithoutGpu())
        return;
    int correct = 0;
    for (const auto &op : builtInOps()) {
        CAPTURE(op.name);
        const auto candidate = translateOp(op);
        REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
        const auto outcome = test::evaluateCandidate(op, *candidate);
        const auto &evaluation = outcome.evaluation;
        std::printf("%-36s %-10s %8.4f ms vs %8.4f ms eager  %6.2fx  %s\n", op.name.c_str(),
                    test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs,
                    evaluation.baseline.medianMs, evaluation.speedup, evaluation.message.c_str());
        CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
        CHECK_FALSE(outcome.workerMustExit);
        correct += evaluation.status == EvalStatus::Correct;
    }
    std::printf("%d of %zu translations verified\n", correct, builtInOps().size());
}
