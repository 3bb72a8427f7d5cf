#include "core/domain/domainjson.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

#include <stdexcept>
#include <vector>

using namespace kx;

TEST_CASE("summarizes samples")
{
    const struct
    {
        const char *name;
        std::vector<double> samples;
        double median, iqr, minimum;
    } rows[] = {
        {"empty", {}, 0.0, 0.0, 0.0},
        {"one", {2.0}, 2.0, 0.0, 2.0},
        {"odd, unsorted", {5, 1, 3}, 3.0, 2.0, 1.0},
        {"even", {1, 2, 3, 4}, 2.5, 1.5, 1.0},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto summary = summarize(row.samples);
            CHECK(summary.medianMs == row.median);
            CHECK(summary.iqrMs == row.iqr);
            CHECK(summary.minMs == row.minimum);
            CHECK(summary.runs == int(row.samples.size()));
        }
    }
}

TEST_CASE("a candidate id is the content hash")
{
    const auto id = makeCandidateId("a", "b");
    CHECK(id.size() == std::size_t(64));
    CHECK(makeCandidateId("a", "b") == id);
    CHECK(makeCandidateId("ab", "") != id); // moving text across the boundary changes the id
    CHECK(makeCandidateId("a", "c") != id);
}

TEST_CASE("enums round-trip")
{
    for (auto status : {EvalStatus::Correct, EvalStatus::Incorrect, EvalStatus::CompileError, EvalStatus::PlanError,
                        EvalStatus::LaunchError, EvalStatus::Fault, EvalStatus::Timeout, EvalStatus::Crashed})
        CHECK(evalStatusFromString(toString(status)) == status);
    for (auto origin : {Origin::Translated, Origin::Mutated, Origin::Crossover, Origin::Manual, Origin::Imported})
        CHECK(originFromString(toString(origin)) == origin);
    CHECK_THROWS_AS(evalStatusFromString("fine"), std::invalid_argument);
}

TEST_CASE("an op round-trips through JSON")
{
    Op op;
    op.name = "matmul";
    op.inputs = {TensorSpec{"a", {"M", "K"}}, TensorSpec{"b", {"K", "N"}}};
    op.outputs = {TensorSpec{"c", {"M", "N"}}};
    op.shapeSets = {{{"M", 64}, {"N", 32}, {"K", 16}}, {{"M", 7}, {"N", 5}, {"K", 3}}};
    op.bytesMovedExpr = "4*(M*K+K*N+M*N)";
    op.flopsExpr = "2*M*N*K";
    op.policy.atol = 1e-3;
    const Op back = nlohmann::json(op).get<Op>();
    CHECK(back == op);
    CHECK_FALSE(nlohmann::json(op)["inputs"][0].contains("valueRange")); // written only where there is one

    // An integer input's value range (class indices) travels with it.
    op.inputs.push_back(TensorSpec{"targets", {"M"}, "int64"});
    op.inputs.back().valueRange = {"0", "N"};
    const Op ranged = nlohmann::json(op).get<Op>();
    CHECK(ranged.inputs.back().valueRange == std::vector<std::string>{"0", "N"});
    CHECK(ranged == op);
}
