#include "archivefixture.h"

#include <QFile>

#include <stdexcept>

namespace kx::test {

Op makeOp(const std::string &name, const std::string &reference)
{
    Op op;
    op.name = name;
    op.description = "test op " + name;
    op.referenceSource = reference;
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"y", {"N"}, "float32"}};
    op.shapeSets = {{{"N", 4096}}};
    op.bytesMovedExpr = "8 * N";
    op.flopsExpr = "N";
    return op;
}

Candidate makeCandidate(const std::string &opName, const std::string &source, Origin origin,
                        const std::string &operatorName, const std::string &description, std::int64_t createdAtMs,
                        std::vector<std::string> parentIds)
{
    Candidate candidate;
    candidate.opName = opName;
    candidate.source = source;
    candidate.launchPlan = R"json({"steps": [{"kernel": "k", "grid": ["ceil_div(N, 256)"], "block": ["256"],)json"
                           R"json( "args": [{"input": "x"}, {"output": "y"}, {"int": "N"}]}]})json";
    candidate.origin = origin;
    candidate.parentIds = std::move(parentIds);
    candidate.operatorName = operatorName;
    candidate.description = description;
    candidate.createdAtMs = createdAtMs;
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    return candidate;
}

Evaluation makeEvaluation(const std::string &candidateId, const std::string &gpuName, EvalStatus status,
                          double medianMs, double baselineMs, std::vector<Flag> flags)
{
    Evaluation evaluation;
    evaluation.candidateId = candidateId;
    evaluation.gpu.name = gpuName;
    evaluation.gpu.computeCapability = gpuName.find("H100") != std::string::npos ? "9.0" : "8.0";
    evaluation.gpu.smCount = 132;
    evaluation.gpu.driverVersion = "580.00";
    evaluation.status = status;
    evaluation.message = status == EvalStatus::Correct ? "ok" : "error: expected a ';'";
    evaluation.compile.registers = 32;
    evaluation.compile.compileMs = 70;
    if (status == EvalStatus::CompileError)
        evaluation.compile.log = "kernel.cu(3): error: expected a \";\"";
    if (status == EvalStatus::Correct) {
        evaluation.samplesMs = {medianMs * 0.99, medianMs, medianMs * 1.01};
        evaluation.timing = summarize(evaluation.samplesMs);
        evaluation.baselineSamplesMs = {baselineMs * 0.99, baselineMs, baselineMs * 1.01};
        evaluation.baseline = summarize(evaluation.baselineSamplesMs);
        evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;
        evaluation.correctness.trials = 5;
        evaluation.correctness.shapeSets = 1;
        evaluation.correctness.maxAbsError = 1e-7;
        evaluation.correctness.checksPassed = {"inputs-unchanged", "deterministic"};
    }
    evaluation.flags = std::move(flags);
    evaluation.createdAtMs = 10000;
    return evaluation;
}

BaselineMeasurement makeBaseline(BaselineKind kind, const std::string &gpuName, double medianMs, Precision precision,
                                 const std::string &error, double driftPercent)
{
    BaselineMeasurement baseline;
    baseline.kind = kind;
    baseline.method = kind == BaselineKind::Eager ? baselinemethod::kLibTorchEager : baselinemethod::kAotiPackage;
    baseline.gpu.name = gpuName;
    baseline.gpu.computeCapability = gpuName.find("H100") != std::string::npos ? "9.0" : "8.0";
    baseline.precision = precision;
    baseline.error = error;
    if (error.empty()) {
        baseline.samplesMs = {medianMs * 0.98, medianMs * 0.99, medianMs, medianMs * 1.01, medianMs * 1.02};
        baseline.timing = summarize(baseline.samplesMs);
        baseline.maxAbsError = precision == Precision::Fp32 ? 2e-7 : 3e-4;
        baseline.maxRelError = precision == Precision::Fp32 ? 1e-6 : 1e-3;
        baseline.driftPercent = driftPercent;
    }
    baseline.details = R"({"note": "test fixture"})";
    baseline.uid = std::string(toString(kind)) + "|" + gpuName + "|" + toString(precision) + "|"
                   + std::to_string(medianMs) + "|" + error;
    baseline.createdAtMs = 9000;
    return baseline;
}

Evaluation withBaselines(Evaluation evaluation, const BaselineMeasurement &eager,
                         const std::optional<BaselineMeasurement> &inductor)
{
    evaluation.precision = eager.precision;
    evaluation.baselineSamplesMs.clear();
    evaluation.baselineWallSamplesMs.clear();
    evaluation.baseline = eager.timing;
    evaluation.baselines = {eager};
    if (inductor)
        evaluation.baselines.push_back(*inductor);
    for (BaselineMeasurement &baseline : evaluation.baselines)
        baseline.gpu = evaluation.gpu;
    if (evaluation.status == EvalStatus::Correct && evaluation.timing.medianMs > 0)
        evaluation.speedup = evaluation.baseline.medianMs / evaluation.timing.medianMs;
    return evaluation;
}

Verdict makeVerdict(const std::string &candidateId, bool accepted, const std::string &reasonCode,
                    const std::string &note)
{
    Verdict verdict;
    verdict.candidateId = candidateId;
    verdict.accepted = accepted;
    verdict.reasonCode = reasonCode;
    verdict.note = note;
    verdict.createdAtMs = 20000;
    return verdict;
}

std::unique_ptr<Archive> openWritable(const QString &path)
{
    auto archive = Archive::open(QFile::encodeName(path).toStdString(), ArchiveMode::ReadWrite);
    if (!archive)
        throw std::runtime_error(archive.error().message);
    return std::move(*archive);
}

SampleArchive SampleArchive::write(const QString &path)
{
    auto archive = openWritable(path);
    SampleArchive sample;
    const Candidate a =
        makeCandidate("relu", "__global__ void k() { /* A */ }", Origin::Translated, "translate", "naive relu", 1000);
    sample.sourceB = "extern \"C\" __global__ void k(const float4 *x, float4 *y, int n)\n"
                     "{\n    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n}\n";
    const Candidate b =
        makeCandidate("relu", sample.sourceB, Origin::Mutated, "block-size", "vectorised float4 loads", 2000, {a.id});
    const Candidate c = makeCandidate("relu", "__global__ void k() { syntax error }", Origin::Mutated, "unroll",
                                      "unrolled loop", 3000, {b.id});
    const Candidate d = makeCandidate("softmax", "__global__ void k() { /* D */ }", Origin::Translated, "translate",
                                      "naive softmax", 4000);
    const Candidate e = makeCandidate("softmax", "__global__ void k() { /* E */ }", Origin::Manual, "",
                                      "hand-written online softmax", 5000);
    Transaction tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    archive->putOp(tx, makeOp("softmax", "torch.softmax(x, dim=-1)"));
    for (const Candidate *candidate : {&a, &b, &c, &d, &e})
        archive->addCandidate(tx, *candidate);
    archive->addEvaluation(tx, makeEvaluation(a.id, "NVIDIA H100 80GB HBM3", EvalStatus::Correct, 0.5, 1.0));
    archive->addEvaluation(tx, makeEvaluation(b.id, "NVIDIA H100 80GB HBM3", EvalStatus::Correct, 0.1, 1.0,
                                              {Flag{"suspicious", R"({"speedup": 10.0, "threshold": 5})"}}));
    archive->addEvaluation(tx, makeEvaluation(b.id, "NVIDIA A100-SXM4-80GB", EvalStatus::Correct, 0.25, 2.0));
    archive->addEvaluation(tx, makeEvaluation(c.id, "NVIDIA H100 80GB HBM3", EvalStatus::CompileError, 0, 0));
    archive->addEvaluation(tx, makeEvaluation(e.id, "NVIDIA A100-SXM4-80GB", EvalStatus::Correct, 2.0, 3.0));
    archive->addVerdict(tx, makeVerdict(b.id, false, "suspicious-timing", "too good to be true"));
    archive->addVerdict(tx, makeVerdict(e.id, true, "verified-speedup"));
    tx.commit();
    sample.a = a.id;
    sample.b = b.id;
    sample.c = c.id;
    sample.d = d.id;
    sample.e = e.id;
    return sample;
}

} // namespace kx::test

namespace kx::test {

BaselineArchive BaselineArchive::addTo(const QString &path)
{
    const std::string h100 = "NVIDIA H100 80GB HBM3", a100 = "NVIDIA A100-SXM4-80GB";
    auto archive = openWritable(path);
    const Candidate loses = makeCandidate("layernorm", "__global__ void k() { /* loses */ }", Origin::Mutated,
                                          "vectorize", "one pass, float4", 11000);
    const Candidate beats = makeCandidate("layernorm", "__global__ void k() { /* beats */ }", Origin::Mutated, "fuse",
                                          "welford in registers", 12000, {loses.id});
    const Candidate failed = makeCandidate("layernorm", "__global__ void k() { /* failed */ }", Origin::Mutated,
                                           "unroll", "unrolled by four", 13000, {loses.id});
    const BaselineMeasurement eagerH100 = makeBaseline(BaselineKind::Eager, h100, 1.0, Precision::Tf32);
    Evaluation losesEvaluation = withBaselines(makeEvaluation(loses.id, h100, EvalStatus::Correct, 0.5, 1.0), eagerH100,
                                               makeBaseline(BaselineKind::Inductor, h100, 0.4, Precision::Tf32));
    Evaluation beatsEvaluation =
        withBaselines(makeEvaluation(beats.id, h100, EvalStatus::Correct, 0.2, 1.0), eagerH100,
                      makeBaseline(BaselineKind::Inductor, h100, 0.5, Precision::Tf32, {}, 25));
    beatsEvaluation.createdAtMs = 10500;
    Evaluation failedEvaluation = withBaselines(
        makeEvaluation(failed.id, a100, EvalStatus::Correct, 0.5, 1.0), makeBaseline(BaselineKind::Eager, a100, 1.0),
        makeBaseline(BaselineKind::Inductor, a100, 0, Precision::Fp32, kExportError));
    failedEvaluation.createdAtMs = 11000;

    for (Evaluation *evaluation : {&losesEvaluation, &beatsEvaluation, &failedEvaluation})
        for (BaselineMeasurement &baseline : evaluation->baselines)
            baseline.opName = "layernorm";

    Transaction tx = archive->begin();
    archive->putOp(tx, makeOp("layernorm", "torch.nn.functional.layer_norm(x, x.shape[-1:])"));
    for (const Candidate *candidate : {&loses, &beats, &failed})
        archive->addCandidate(tx, *candidate);
    for (const Evaluation *evaluation : {&losesEvaluation, &beatsEvaluation, &failedEvaluation})
        archive->addEvaluation(tx, *evaluation);
    tx.commit();
    return {loses.id, beats.id, failed.id};
}

} // namespace kx::test
