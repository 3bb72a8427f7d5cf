// What candidates are compared with: precision policies and their tolerances, the reduction length they follow,
// when a worker measures the baselines again, how a kernel stands against both, and the JSON of measurements.
#include "core/domain/domainjson.h"
#include "core/eval/baselinebook.h"
#include "core/gpu/timingflags.h"
#include "core/ops/builtinops.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

#include <cmath>
#include <stdexcept>

using namespace kx;

namespace {

BaselineMeasurement measurement(BaselineKind kind, double medianMs, std::string error = {})
{
    BaselineMeasurement m;
    m.uid = std::string(toString(kind)) + std::to_string(medianMs);
    m.kind = kind;
    m.method = kind == BaselineKind::Eager ? baselinemethod::kLibTorchEager : baselinemethod::kAotiPackage;
    m.error = std::move(error);
    if (m.error.empty()) {
        m.samplesMs = {medianMs, medianMs};
        m.timing = summarize(m.samplesMs);
    }
    return m;
}

EvaluateRequest request(std::int64_t runId, const std::string &opName = "relu")
{
    EvaluateRequest r;
    r.op = *findBuiltInOp(opName);
    r.candidate.runId = runId;
    return r;
}

} // namespace

TEST_CASE("precision policies have names, and an unknown one says which there are")
{
    for (const auto precision : {Precision::Fp32, Precision::Tf32, Precision::KernelBench})
        CHECK(precisionFromString(toString(precision)) == precision);
    CHECK(std::string(toString(Precision::KernelBench)) == "kernelbench");
    try {
        precisionFromString("bf16");
        FAIL("bf16 was accepted");
    } catch (const std::invalid_argument &error) {
        CHECK(std::string(error.what()).find("fp32, tf32 or kernelbench") != std::string::npos);
    }
    CHECK_FALSE(allowsTf32(Precision::Fp32));
    CHECK(allowsTf32(Precision::Tf32));
    CHECK(allowsTf32(Precision::KernelBench));
}

TEST_CASE("the tolerance follows the policy; under tf32 it grows with the square root of the reduction length")
{
    OpPolicy policy;
    policy.atol = 1e-3;
    policy.rtol = 1e-4;
    const double u = 1.0 / 2048;

    CHECK(toleranceFor(policy, Precision::Fp32, 4096) == Tolerance{1e-3, 1e-4});
    const auto tf32 = toleranceFor(policy, Precision::Tf32, 4096);
    CHECK(tf32.atol == doctest::Approx(16 * u * 64)); // 0.5: sums of 4096 products
    CHECK(tf32.rtol == doctest::Approx(16 * u));
    CHECK(toleranceFor(policy, Precision::Tf32, 16384).atol == doctest::Approx(2 * tf32.atol)); // sqrt(4x) = 2x
    // Nothing to round where nothing is summed; a looser tolerance of the op itself is never tightened.
    CHECK(toleranceFor(policy, Precision::Tf32, 1) == Tolerance{1e-3, 1e-4});
    OpPolicy loose;
    loose.atol = 1.0;
    loose.rtol = 0.5;
    CHECK(toleranceFor(loose, Precision::Tf32, 4096) == Tolerance{1.0, 0.5});
    // KernelBench's own check, whatever the op says.
    CHECK(toleranceFor(policy, Precision::KernelBench, 4096) == Tolerance{1e-2, 1e-2});
    CHECK(toleranceFor(loose, Precision::KernelBench, 1) == Tolerance{1e-2, 1e-2});
}

TEST_CASE("the reduction length is the FLOPs per output over two")
{
    const auto length = [](const char *name, std::size_t shapeSet = 0) {
        const Op *op = findBuiltInOp(name);
        REQUIRE(op);
        return reductionLength(*op, op->shapeSets.at(shapeSet));
    };
    CHECK(length("matmul") == doctest::Approx(2048));
    CHECK(length("matmul", 1) == doctest::Approx(261));
    CHECK(length("conv2d_bias_relu") == doctest::Approx(16 * 3 * 3 + 1)); // C_in * kernel, and the bias
    CHECK(length("relu") == 1);                                           // N flops for N outputs: at least 1
    Op unknown = *findBuiltInOp("matmul");
    unknown.flopsExpr.clear();
    CHECK(reductionLength(unknown, unknown.shapeSets[0]) == 1);
    unknown.flopsExpr = "2 * M * N * K";
    unknown.outputs[0].shape = {"M", "Q"}; // Q is no size of the shape set
    CHECK(reductionLength(unknown, unknown.shapeSets[0]) == 1);

    EvalSettings settings;
    settings.precision = Precision::Tf32;
    const Op &matmul = *findBuiltInOp("matmul");
    CHECK(checkTolerance(matmul, settings, matmul.shapeSets[0]).atol
          == doctest::Approx(16.0 / 2048 * std::sqrt(2048.0)));
}

TEST_CASE("how a kernel stands against both baselines, in the words the CLI and the GUI share")
{
    CHECK(standingText(1.5, 1.2) == "beats eager and Inductor");
    CHECK(standingText(1.5, 0.6) == "beats eager, loses to Inductor");
    CHECK(standingText(0.9, 1.1) == "loses to eager, beats Inductor");
    CHECK(standingText(0.9, 0.5) == "loses to eager and Inductor");
    CHECK(standingText(1.5, std::nullopt) == "beats eager (no Inductor time)");

    Evaluation evaluation;
    evaluation.status = EvalStatus::Correct;
    evaluation.timing.medianMs = 2;
    evaluation.baselines = {measurement(BaselineKind::Eager, 3), measurement(BaselineKind::Inductor, 1)};
    CHECK(speedupOverInductor(evaluation) == doctest::Approx(0.5));
    evaluation.baselines[1] = measurement(BaselineKind::Inductor, 1, "torch.export failed");
    CHECK_FALSE(speedupOverInductor(evaluation).has_value());
    evaluation.baselines.pop_back();
    CHECK_FALSE(speedupOverInductor(evaluation).has_value());
    evaluation.baselines.push_back(measurement(BaselineKind::Inductor, 1));
    evaluation.status = EvalStatus::Incorrect;
    CHECK_FALSE(speedupOverInductor(evaluation).has_value());
}

TEST_CASE("a worker measures the baselines once per run, then after N evaluations or M minutes")
{
    EvalSettings settings;
    settings.baselineEveryEvaluations = 3;
    settings.baselineEveryMinutes = 10;
    BaselineBook book;
    const auto key = BaselineBook::keyFor(request(7));
    CHECK(book.needsMeasurement(key, settings, 0));
    CHECK(book.current(key).empty());

    std::vector<BaselineMeasurement> first{measurement(BaselineKind::Eager, 2.0),
                                           measurement(BaselineKind::Inductor, 1.0)};
    book.record(key, first, 1000);
    CHECK(first[0].driftPercent == 0);
    CHECK(book.current(key).size() == 2);
    for (int i = 0; i < 2; ++i) {
        CHECK_FALSE(book.needsMeasurement(key, settings, 1000));
        book.countEvaluation(key);
    }
    CHECK_FALSE(book.needsMeasurement(key, settings, 1000));
    book.countEvaluation(key);
    CHECK(book.needsMeasurement(key, settings, 1000)); // three evaluations served

    std::vector<BaselineMeasurement> again{measurement(BaselineKind::Eager, 2.5),
                                           measurement(BaselineKind::Inductor, 0.9)};
    book.record(key, again, 2000);
    CHECK(again[0].driftPercent == doctest::Approx(25)); // against the first, not the last
    CHECK(again[1].driftPercent == doctest::Approx(-10));
    CHECK(book.current(key)[0].uid == again[0].uid);
    CHECK_FALSE(book.needsMeasurement(key, settings, 2000 + 9 * 60000));
    CHECK(book.needsMeasurement(key, settings, 2000 + 10 * 60000)); // ten minutes

    settings.baselineEveryEvaluations = 0;
    settings.baselineEveryMinutes = 0;
    for (int i = 0; i < 1000; ++i)
        book.countEvaluation(key);
    CHECK_FALSE(book.needsMeasurement(key, settings, 1e12)); // never again
}

TEST_CASE("a measurement that failed does not become the reference of the drift")
{
    BaselineBook book;
    const auto key = BaselineBook::keyFor(request(7));
    std::vector<BaselineMeasurement> failed{measurement(BaselineKind::Inductor, 0, "crashed (signal 11)")};
    book.record(key, failed, 0);
    std::vector<BaselineMeasurement> later{measurement(BaselineKind::Inductor, 4.0)};
    book.record(key, later, 1);
    CHECK(later[0].driftPercent == 0);
}

TEST_CASE("each run, op, precision and Inductor setup has measurements of its own")
{
    const auto base = BaselineBook::keyFor(request(7));
    CHECK_FALSE(base < BaselineBook::keyFor(request(7)));
    CHECK_FALSE(BaselineBook::keyFor(request(7)) < base);

    BaselineBook book;
    std::vector<BaselineMeasurement> measured{measurement(BaselineKind::Eager, 1)};
    book.record(base, measured, 0);
    EvalSettings settings;
    CHECK_FALSE(book.needsMeasurement(base, settings, 0));

    auto otherRun = request(8);
    auto otherOp = request(7, "gelu");
    auto changedOp = request(7);
    changedOp.op.shapeSets[0]["N"] = 17;
    auto otherPrecision = request(7);
    otherPrecision.settings.precision = Precision::Tf32;
    auto withInductor = request(7);
    withInductor.settings.inductor.command = {"kx", "baseline-runner", "--package", "a.pt2"};
    withInductor.settings.inductor.method = baselinemethod::kAotiPackage;
    for (const auto *other : {&otherRun, &otherOp, &changedOp, &otherPrecision, &withInductor})
        CHECK(book.needsMeasurement(BaselineBook::keyFor(*other), settings, 0));
}

TEST_CASE("baseline measurements and evaluations that refer to them keep everything in JSON")
{
    auto eager = measurement(BaselineKind::Eager, 2.0);
    eager.wallSamplesMs = {2.1, 2.2};
    eager.precision = Precision::Tf32;
    eager.maxAbsError = 1e-3;
    eager.driftPercent = -3;
    eager.details = R"({"pythonEagerMs":2.4})";
    eager.gpu.name = "NVIDIA H100 80GB HBM3";
    eager.opName = "relu";
    eager.createdAtMs = 42;
    const auto inductor = measurement(BaselineKind::Inductor, 0, "torch.export failed: data-dependent branch");

    Evaluation evaluation;
    evaluation.candidateId = "c";
    evaluation.status = EvalStatus::Correct;
    evaluation.precision = Precision::Tf32;
    evaluation.baselines = {eager, inductor};
    const auto back = nlohmann::json(evaluation).get<Evaluation>();
    CHECK(back.precision == Precision::Tf32);
    REQUIRE(back.baselines.size() == 2);
    CHECK(back.baselines[0] == eager);
    CHECK(back.baselines[1] == inductor);

    // Evaluations written before baselines were measured apart: fp32, none.
    auto old = nlohmann::json(evaluation);
    old.erase("precision");
    old.erase("baselines");
    const auto fromOld = old.get<Evaluation>();
    CHECK(fromOld.precision == Precision::Fp32);
    CHECK(fromOld.baselines.empty());

    auto unknown = nlohmann::json(eager);
    unknown["kind"] = "jax";
    CHECK_THROWS_AS(unknown.get<BaselineMeasurement>(), std::invalid_argument);
}
