// The whole import of small copies of KernelBench's level-1 losses (94, 95, 96, 98, 99 and 100): the graphs
// PyTorch really traces become loss recipes whose first candidate compiles, the cross entropy's targets get their
// class range, and a loss the template refuses says why. Needs Python 3 with PyTorch; exits 77 (skipped) without it.
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/problemimporter.h"

#include "kerneltestsupport.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <string>

using namespace kx;
using kx::test::checkCompiles;

namespace {

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/losses/";

// Each file is imported once for all test cases (unconfined where bubblewrap is missing: the sandbox is
// tst_importsandbox's).
const Expected<ImportedProblem> &imported(const std::string &file)
{
    return test::importOnceOrSkip(kData + file);
}

const Op &importedOp(const std::string &file)
{
    return test::importedOp(kData + file);
}

OpRecipe recipeFor(const Op &op)
{
    const auto recipe = recipeOf(op);
    REQUIRE_MESSAGE(recipe, (recipe ? "" : recipe.error().message));
    return *recipe;
}

} // namespace

TEST_CASE("the level-1 losses import as loss recipes that compile")
{
    const struct
    {
        const char *file;
        const char *prologue;
        const char *reduction;
    } cases[] = {
        {"cross_entropy.py", "cross-entropy", "mean"},
        {"smooth_l1.py", "elementwise", "mean"},
        {"kl_div_batchmean.py", "elementwise", "batchmean"},
        {"triplet_margin.py", "triplet-margin", "mean"},
        {"mse.py", "elementwise", "mean"},   // a mean of elementwise calls, no loss call
        {"hinge.py", "elementwise", "mean"}, // the same, its targets [dim] repeated along the rows
    };
    for (const auto &c : cases) {
        CAPTURE(c.file);
        const Op &op = importedOp(c.file);
        const auto recipe = recipeFor(op);
        CHECK(recipe.family == "loss");
        CHECK(recipe.prologue == c.prologue);
        CHECK(recipe.reduction == c.reduction);
        CHECK(recipe.rows == "batch_size");
        CHECK_FALSE(op.policy.allowLibrarySteps);
        REQUIRE(op.outputs.size() == 1);
        CHECK(op.outputs.front().shape.empty());
        checkCompiles(op);
    }
}

TEST_CASE("the imported cross entropy's targets are class indices [0, num_classes) in every shape set")
{
    const Op &op = importedOp("cross_entropy.py");
    REQUIRE(op.inputs.size() == 2);
    CHECK(op.inputs[1].dtype == "int64");
    CHECK(op.inputs[1].valueRange == std::vector<std::string>{"0", "num_classes"});
    CHECK(op.inputs[0].valueRange.empty());
    CHECK(recipeFor(op).cols == "num_classes");
    REQUIRE(op.shapeSets.size() == 2);
    for (const auto &shapes : op.shapeSets)
        CHECK(shapes.at("num_classes") == 1000);
}

TEST_CASE("the imported KL divergence fuses the log of the predictions into its term")
{
    const auto recipe = recipeFor(importedOp("kl_div_batchmean.py"));
    CHECK(recipe.expression.find("logf(predictions)") != std::string::npos);
    CHECK(recipe.expression.find("targets * logf(targets)") != std::string::npos);
}

TEST_CASE("a loss the template refuses is not translated, and says why")
{
    const auto &result = imported("cross_entropy_smoothed.py");
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    CHECK_FALSE(result->translated());
    CHECK(result->translationError.find("label smoothing") != std::string::npos);
}
