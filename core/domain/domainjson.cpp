#include "core/domain/domainjson.h"

namespace kx {
namespace {
// Reads j[key] into value when present; absent keys keep the default (older files stay readable).
template <typename T>
void read(const nlohmann::json &j, const char *key, T &value)
{
    if (const auto it = j.find(key); it != j.end() && !it->is_null())
        it->get_to(value);
}
} // namespace

void to_json(nlohmann::json &j, const TensorSpec &v)
{
    j = {{"name", v.name}, {"shape", v.shape}, {"dtype", v.dtype}};
    if (!v.valueRange.empty())
        j["valueRange"] = v.valueRange;
}
void from_json(const nlohmann::json &j, TensorSpec &v)
{
    j.at("name").get_to(v.name);
    read(j, "shape", v.shape);
    read(j, "dtype", v.dtype);
    read(j, "valueRange", v.valueRange);
}

void to_json(nlohmann::json &j, const OpPolicy &v)
{
    j = {{"atol", v.atol},
         {"rtol", v.rtol},
         {"allowLibrarySteps", v.allowLibrarySteps},
         {"allowedLibraryOps", v.allowedLibraryOps}};
}
void from_json(const nlohmann::json &j, OpPolicy &v)
{
    read(j, "atol", v.atol);
    read(j, "rtol", v.rtol);
    read(j, "allowLibrarySteps", v.allowLibrarySteps);
    read(j, "allowedLibraryOps", v.allowedLibraryOps);
}

void to_json(nlohmann::json &j, const Op &v)
{
    j = {{"name", v.name},
         {"sourceKind", toString(v.sourceKind)},
         {"description", v.description},
         {"referenceSource", v.referenceSource},
         {"inputs", v.inputs},
         {"outputs", v.outputs},
         {"shapeSets", v.shapeSets},
         {"bytesMoved", v.bytesMovedExpr},
         {"flops", v.flopsExpr},
         {"policy", v.policy}};
    if (!v.recipe.empty())
        j["recipe"] = nlohmann::json::parse(v.recipe);
    if (!v.referenceModule.empty())
        j["referenceModule"] = v.referenceModule;
}
void from_json(const nlohmann::json &j, Op &v)
{
    j.at("name").get_to(v.name);
    v.sourceKind = sourceKindFromString(j.value("sourceKind", "builtin"));
    read(j, "description", v.description);
    read(j, "referenceSource", v.referenceSource);
    read(j, "inputs", v.inputs);
    read(j, "outputs", v.outputs);
    read(j, "shapeSets", v.shapeSets);
    read(j, "bytesMoved", v.bytesMovedExpr);
    read(j, "flops", v.flopsExpr);
    read(j, "policy", v.policy);
    if (const auto it = j.find("recipe"); it != j.end() && !it->is_null())
        v.recipe = it->is_string() ? it->get<std::string>() : it->dump();
    read(j, "referenceModule", v.referenceModule);
}

void to_json(nlohmann::json &j, const Candidate &v)
{
    j = {{"id", v.id},
         {"op", v.opName},
         {"source", v.source},
         {"launchPlan", v.launchPlan},
         {"origin", toString(v.origin)},
         {"parents", v.parentIds},
         {"operator", v.operatorName},
         {"description", v.description},
         {"createdAt", v.createdAtMs}};
    if (!v.genome.empty())
        j["genome"] = v.genome;
    if (v.runId)
        j["runId"] = *v.runId;
}
void from_json(const nlohmann::json &j, Candidate &v)
{
    read(j, "id", v.id);
    j.at("op").get_to(v.opName);
    j.at("source").get_to(v.source);
    j.at("launchPlan").get_to(v.launchPlan);
    v.origin = originFromString(j.value("origin", "imported"));
    read(j, "parents", v.parentIds);
    read(j, "operator", v.operatorName);
    read(j, "description", v.description);
    read(j, "createdAt", v.createdAtMs);
    read(j, "genome", v.genome);
    if (j.contains("runId") && !j["runId"].is_null())
        v.runId = j["runId"].get<std::int64_t>();
}

void to_json(nlohmann::json &j, const GpuInfo &v)
{
    j = {{"name", v.name},
         {"uuid", v.uuid},
         {"host", v.host},
         {"computeCapability", v.computeCapability},
         {"smCount", v.smCount},
         {"memoryBytes", v.memoryBytes},
         {"l2Bytes", v.l2Bytes},
         {"smClockMHz", v.smClockMHz},
         {"memoryClockMHz", v.memoryClockMHz},
         {"driverVersion", v.driverVersion},
         {"cudaRuntimeVersion", v.cudaRuntimeVersion},
         {"nvrtcVersion", v.nvrtcVersion},
         {"torchVersion", v.torchVersion},
         {"measuredBandwidthGBs", v.measuredBandwidthGBs},
         {"peakTflops", v.peakTflops}};
}
void from_json(const nlohmann::json &j, GpuInfo &v)
{
    read(j, "name", v.name);
    read(j, "uuid", v.uuid);
    read(j, "host", v.host);
    read(j, "computeCapability", v.computeCapability);
    read(j, "smCount", v.smCount);
    read(j, "memoryBytes", v.memoryBytes);
    read(j, "l2Bytes", v.l2Bytes);
    read(j, "smClockMHz", v.smClockMHz);
    read(j, "memoryClockMHz", v.memoryClockMHz);
    read(j, "driverVersion", v.driverVersion);
    read(j, "cudaRuntimeVersion", v.cudaRuntimeVersion);
    read(j, "nvrtcVersion", v.nvrtcVersion);
    read(j, "torchVersion", v.torchVersion);
    read(j, "measuredBandwidthGBs", v.measuredBandwidthGBs);
    read(j, "peakTflops", v.peakTflops);
}

void to_json(nlohmann::json &j, const CompileStats &v)
{
    j = {{"registers", v.registers},
         {"spillBytes", v.spillBytes},
         {"staticSharedBytes", v.staticSharedBytes},
         {"compileMs", v.compileMs},
         {"log", v.log}};
}
void from_json(const nlohmann::json &j, CompileStats &v)
{
    read(j, "registers", v.registers);
    read(j, "spillBytes", v.spillBytes);
    read(j, "staticSharedBytes", v.staticSharedBytes);
    read(j, "compileMs", v.compileMs);
    read(j, "log", v.log);
}

void to_json(nlohmann::json &j, const ErrorProfile &v)
{
    j = {{"samples", v.samples},
         {"maxRelError", v.maxRelError},
         {"p99RelError", v.p99RelError},
         {"medianRelError", v.medianRelError}};
}
void from_json(const nlohmann::json &j, ErrorProfile &v)
{
    read(j, "samples", v.samples);
    read(j, "maxRelError", v.maxRelError);
    read(j, "p99RelError", v.p99RelError);
    read(j, "medianRelError", v.medianRelError);
}

void to_json(nlohmann::json &j, const PrecisionAudit &v)
{
    j = {{"candidate", v.candidate},
         {"fp32Reference", v.fp32Reference},
         {"policyReference", v.policyReference},
         {"unavailable", v.unavailable}};
}
void from_json(const nlohmann::json &j, PrecisionAudit &v)
{
    read(j, "candidate", v.candidate);
    read(j, "fp32Reference", v.fp32Reference);
    read(j, "policyReference", v.policyReference); // absent in archives from before TF32 audits: empty
    read(j, "unavailable", v.unavailable);
}

void to_json(nlohmann::json &j, const CorrectnessReport &v)
{
    j = {{"trials", v.trials},           {"shapeSets", v.shapeSets},   {"maxAbsError", v.maxAbsError},
         {"maxRelError", v.maxRelError}, {"mismatches", v.mismatches}, {"checksPassed", v.checksPassed},
         {"failure", v.failure},         {"inputs", v.inputs},         {"timingInputSets", v.timingInputSets}};
    if (v.precisionAudit)
        j["precisionAudit"] = *v.precisionAudit;
}
void from_json(const nlohmann::json &j, CorrectnessReport &v)
{
    read(j, "inputs", v.inputs);
    read(j, "timingInputSets", v.timingInputSets);
    if (const auto it = j.find("precisionAudit"); it != j.end() && it->is_object())
        v.precisionAudit = it->get<PrecisionAudit>();
    read(j, "trials", v.trials);
    read(j, "shapeSets", v.shapeSets);
    read(j, "maxAbsError", v.maxAbsError);
    read(j, "maxRelError", v.maxRelError);
    read(j, "mismatches", v.mismatches);
    read(j, "checksPassed", v.checksPassed);
    read(j, "failure", v.failure);
}

void to_json(nlohmann::json &j, const TimingSummary &v)
{
    j = {{"medianMs", v.medianMs},
         {"iqrMs", v.iqrMs},
         {"minMs", v.minMs},
         {"wallMedianMs", v.wallMedianMs},
         {"runs", v.runs}};
}
void from_json(const nlohmann::json &j, TimingSummary &v)
{
    read(j, "medianMs", v.medianMs);
    read(j, "iqrMs", v.iqrMs);
    read(j, "minMs", v.minMs);
    read(j, "wallMedianMs", v.wallMedianMs);
    read(j, "runs", v.runs);
}

void to_json(nlohmann::json &j, const Flag &v)
{
    j = {{"kind", v.kind}, {"evidence", v.evidence}};
}
void from_json(const nlohmann::json &j, Flag &v)
{
    j.at("kind").get_to(v.kind);
    read(j, "evidence", v.evidence);
}

void to_json(nlohmann::json &j, const BaselineMeasurement &v)
{
    j = {{"uid", v.uid},
         {"kind", toString(v.kind)},
         {"method", v.method},
         {"op", v.opName},
         {"gpu", v.gpu},
         {"precision", toString(v.precision)},
         {"shapeSet", v.shapeSet},
         {"timing", v.timing},
         {"samplesMs", v.samplesMs},
         {"wallSamplesMs", v.wallSamplesMs},
         {"maxAbsError", v.maxAbsError},
         {"maxRelError", v.maxRelError},
         {"driftPercent", v.driftPercent},
         {"error", v.error},
         {"details", v.details},
         {"createdAt", v.createdAtMs}};
}
void from_json(const nlohmann::json &j, BaselineMeasurement &v)
{
    read(j, "uid", v.uid);
    v.kind = baselineKindFromString(j.at("kind").get<std::string>());
    read(j, "method", v.method);
    read(j, "op", v.opName);
    read(j, "gpu", v.gpu);
    v.precision = precisionFromString(j.value("precision", "fp32"));
    read(j, "shapeSet", v.shapeSet);
    read(j, "timing", v.timing);
    read(j, "samplesMs", v.samplesMs);
    read(j, "wallSamplesMs", v.wallSamplesMs);
    read(j, "maxAbsError", v.maxAbsError);
    read(j, "maxRelError", v.maxRelError);
    read(j, "driftPercent", v.driftPercent);
    read(j, "error", v.error);
    read(j, "details", v.details);
    read(j, "createdAt", v.createdAtMs);
}

void to_json(nlohmann::json &j, const Evaluation &v)
{
    j = {{"candidate", v.candidateId},
         {"gpu", v.gpu},
         {"status", toString(v.status)},
         {"message", v.message},
         {"compile", v.compile},
         {"correctness", v.correctness},
         {"samplesMs", v.samplesMs},
         {"wallSamplesMs", v.wallSamplesMs},
         {"timing", v.timing},
         {"baselineSamplesMs", v.baselineSamplesMs},
         {"baselineWallSamplesMs", v.baselineWallSamplesMs},
         {"baseline", v.baseline},
         {"speedup", v.speedup},
         {"precision", toString(v.precision)},
         {"baselines", v.baselines},
         {"flags", v.flags},
         {"createdAt", v.createdAtMs}};
}
void from_json(const nlohmann::json &j, Evaluation &v)
{
    read(j, "candidate", v.candidateId);
    read(j, "gpu", v.gpu);
    v.status = evalStatusFromString(j.at("status").get<std::string>());
    read(j, "message", v.message);
    read(j, "compile", v.compile);
    read(j, "correctness", v.correctness);
    read(j, "samplesMs", v.samplesMs);
    read(j, "wallSamplesMs", v.wallSamplesMs);
    read(j, "timing", v.timing);
    read(j, "baselineSamplesMs", v.baselineSamplesMs);
    read(j, "baselineWallSamplesMs", v.baselineWallSamplesMs);
    read(j, "baseline", v.baseline);
    read(j, "speedup", v.speedup);
    // Evaluations from before precision policies were all fp32.
    v.precision = precisionFromString(j.value("precision", "fp32"));
    read(j, "baselines", v.baselines);
    read(j, "flags", v.flags);
    read(j, "createdAt", v.createdAtMs);
}

void to_json(nlohmann::json &j, const Verdict &v)
{
    j = {{"candidate", v.candidateId}, {"accepted", v.accepted},  {"reason", v.reasonCode}, {"note", v.note},
         {"createdAt", v.createdAtMs}, {"retracted", v.retracted}};
}
void from_json(const nlohmann::json &j, Verdict &v)
{
    read(j, "candidate", v.candidateId);
    j.at("accepted").get_to(v.accepted);
    read(j, "reason", v.reasonCode);
    read(j, "note", v.note);
    read(j, "createdAt", v.createdAtMs);
    read(j, "retracted", v.retracted);
}

void to_json(nlohmann::json &j, const Run &v)
{
    j = {{"uid", v.uid},
         {"op", v.opName},
         {"seed", v.seed},
         {"settings", v.settings},
         {"environment", v.environment},
         {"state", toString(v.state)},
         {"createdAt", v.createdAtMs},
         {"updatedAt", v.updatedAtMs}};
}
void from_json(const nlohmann::json &j, Run &v)
{
    j.at("uid").get_to(v.uid);
    j.at("op").get_to(v.opName);
    read(j, "seed", v.seed);
    read(j, "settings", v.settings);
    read(j, "environment", v.environment);
    v.state = runStateFromString(j.value("state", "created"));
    read(j, "createdAt", v.createdAtMs);
    read(j, "updatedAt", v.updatedAtMs);
}

} // namespace kx
