// The generated window stages on the GPU: our small convolution and pooling problem files are imported,
// translated (direct convolution and window pooling kernels, no library step) and checked against their
// TorchScript references. Needs a GPU and a Python with PyTorch for the import; skips without either.
#include "gputestsupport.h"

#include "core/kernelbench/problemimporter.h"
#include "core/search/templateproposer.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using namespace kx;

namespace {

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/";

void skipWithoutPython()
{
    if (const auto python = ProblemImporter().findPython(); !python) {
        std::cout << "skipped: " << python.error().message << '\n';
        std::exit(77);
    }
}

void requireTranslationCorrect(const std::string &file)
{
    CAPTURE(file);
    // The project's own problem files: unconfined where bubblewrap is missing (the GPU machine has none).
    ImportOptions options;
    options.sandbox = ProblemImporter::sandboxAvailable();
    const auto imported = ProblemImporter(options).importFile(kData + file);
    REQUIRE_MESSAGE(imported, (imported ? "" : imported.error().message));
    REQUIRE_MESSAGE(imported->translated(), imported->translationError);
    const Op &op = imported->op;
    CHECK_FALSE(op.policy.allowLibrarySteps);
    const auto candidate = translateOp(op);
    REQUIRE_MESSAGE(candidate, (candidate ? "" : candidate.error().message));
    const auto outcome = test::evaluateCandidate(op, *candidate);
    const auto &evaluation = outcome.evaluation;
    std::printf("%-32s %-10s %8.4f ms vs %8.4f ms eager  %s\n", file.c_str(),
                test::statusText(evaluation.status).c_str(), evaluation.timing.medianMs, evaluation.baseline.medianMs,
                evaluation.message.c_str());
    CHECK_MESSAGE(test::statusText(evaluation.status) == "correct", evaluation.message);
    CHECK_FALSE(outcome.workerMustExit);
}

} // namespace

TEST_CASE("generated convolutions verify on the GPU")
{
    if (!test::skipWithoutGpu())
        return;
    skipWithoutPython();
    for (const char *file :
         {"conv1d_strided_dilated.py", "conv2d_grouped_padded.py", "conv3d.py", "conv_transpose2d.py",
          "conv_transpose1d_dilated.py", "conv_depthwise.py", "conv_depthwise_separable.py"})
        requireTranslationCorrect(file);
}

TEST_CASE("generated poolings verify on the GPU")
{
    if (!test::skipWithoutGpu())
        return;
    skipWithoutPython();
    for (const char *file : {"max_pool.py", "avg_pool.py", "avg_pool1d.py"})
        requireTranslationCorrect(file);
}
