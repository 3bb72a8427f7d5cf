#include "core/archive/archivejson.h"

#include "core/archive/archive.h"
#include "core/domain/domainjson.h"

#include <algorithm>
#include <map>
#include <set>

namespace kx {
namespace {

using nlohmann::json;

bool selected(const std::vector<std::string> &opNames, const std::string &name)
{
    return opNames.empty() || std::find(opNames.begin(), opNames.end(), name) != opNames.end();
}

std::string runUid(const Archive &archive, std::map<std::int64_t, std::string> &cache, std::int64_t runId)
{
    if (auto it = cache.find(runId); it != cache.end())
        return it->second;
    const auto run = archive.run(runId);
    return cache[runId] = run ? run->uid : std::string();
}

json provenanceToJson(const CandidateProvenance &p)
{
    return {{"proposer", p.proposer}, {"model", p.model}, {"prompt", p.prompt}, {"promptSha256", p.promptSha256},
            {"response", p.response}, {"promptTokens", p.promptTokens}, {"completionTokens", p.completionTokens},
            {"cost", p.cost}, {"note", p.note}};
}

CandidateProvenance provenanceFromJson(const json &j)
{
    CandidateProvenance p;
    p.proposer = j.at("proposer").get<std::string>();
    p.model = j.value("model", std::string());
    p.prompt = j.value("prompt", std::string());
    p.promptSha256 = j.value("promptSha256", std::string());
    p.response = j.value("response", std::string());
    p.promptTokens = j.value("promptTokens", std::int64_t(0));
    p.completionTokens = j.value("completionTokens", std::int64_t(0));
    p.cost = j.value("cost", 0.0);
    p.note = j.value("note", std::string());
    return p;
}

// Runs referenced by uid in the export; integer ids are local to one archive.
json exportCandidate(const Archive &archive, const Candidate &candidate, std::map<std::int64_t, std::string> &uids)
{
    json item = candidate;
    item.erase("runId");
    if (candidate.runId)
        item["run"] = runUid(archive, uids, *candidate.runId);
    json evaluations = json::array();
    for (const auto &evaluation : archive.evaluations(candidate.id)) {
        json e = evaluation;
        e.erase("candidate");
        if (evaluation.runId)
            e["run"] = runUid(archive, uids, *evaluation.runId);
        evaluations.push_back(std::move(e));
    }
    item["evaluations"] = std::move(evaluations);
    json verdicts = json::array();
    for (const auto &verdict : archive.verdicts(candidate.id)) {
        json v = verdict;
        v.erase("candidate");
        verdicts.push_back(std::move(v));
    }
    item["verdicts"] = std::move(verdicts);
    if (const auto provenance = archive.provenance(candidate.id))
        item["provenance"] = provenanceToJson(*provenance);
    return item;
}

} // namespace

json exportArchive(const Archive &archive, const std::vector<std::string> &opNames)
{
    json document{{"format", kExportFormat}, {"version", kExportFormatVersion}};
    json ops = json::array();
    for (const auto &op : archive.ops()) {
        if (!selected(opNames, op.name))
            continue;
        json item = op;
        item["sourceText"] = archive.opSourceText(op.name);
        ops.push_back(std::move(item));
    }
    json runs = json::array();
    std::map<std::int64_t, std::string> uids;
    for (const auto &run : archive.runs()) {
        if (!selected(opNames, run.opName))
            continue;
        uids[run.id] = run.uid;
        json item = run;
        json members = json::array();
        for (const auto &[id, generation] : archive.runGenerations(run.id))
            members.push_back({{"id", id}, {"generation", generation}});
        item["candidates"] = std::move(members);
        runs.push_back(std::move(item));
    }
    json candidates = json::array();
    for (const auto &candidate : archive.candidates())
        if (selected(opNames, candidate.opName))
            candidates.push_back(exportCandidate(archive, candidate, uids));
    document["ops"] = std::move(ops);
    document["runs"] = std::move(runs);
    document["candidates"] = std::move(candidates);
    return document;
}

namespace {

// Evaluations and verdicts already present (same candidate, GPU/decision and time) are not imported twice.
bool hasEvaluation(const Archive &archive, const Evaluation &evaluation)
{
    for (const auto &existing : archive.evaluations(evaluation.candidateId))
        if (existing.createdAtMs == evaluation.createdAtMs && existing.gpu.fingerprint() == evaluation.gpu.fingerprint()
            && existing.status == evaluation.status)
            return true;
    return false;
}

bool hasVerdict(const Archive &archive, const Verdict &verdict)
{
    for (const auto &existing : archive.verdicts(verdict.candidateId))
        if (existing.createdAtMs == verdict.createdAtMs && existing.accepted == verdict.accepted)
            return true;
    return false;
}

std::optional<std::int64_t> lookupRun(const std::map<std::string, std::int64_t> &runIds, const json &item)
{
    if (!item.contains("run"))
        return std::nullopt;
    const auto uid = item.at("run").get<std::string>();
    const auto it = runIds.find(uid);
    if (it == runIds.end())
        throw std::invalid_argument("refers to unknown run " + uid);
    return it->second;
}

// The generation a candidate has in its own run, from that run's member list.
int generationIn(const json &document, const json &candidate)
{
    if (!candidate.contains("run"))
        return 0;
    const auto uid = candidate.at("run").get<std::string>();
    const auto id = candidate.value("id", std::string());
    for (const auto &run : document.at("runs"))
        if (run.value("uid", std::string()) == uid)
            for (const auto &member : run.value("candidates", json::array()))
                if (member.value("id", std::string()) == id)
                    return member.value("generation", 0);
    return 0;
}

ImportStats importDocument(Archive &archive, Transaction &tx, const json &document)
{
    ImportStats stats;
    std::set<std::string> opNames;
    for (const auto &item : document.at("ops")) {
        const Op op = item.get<Op>();
        archive.putOp(tx, op, item.value("sourceText", std::string()));
        opNames.insert(op.name);
        ++stats.ops;
    }
    std::map<std::string, std::int64_t> runIds;
    std::vector<std::pair<std::int64_t, const json *>> memberships;
    for (const auto &item : document.at("runs")) {
        const Run run = item.get<Run>();
        if (const auto existing = archive.runByUid(run.uid)) {
            runIds[run.uid] = existing->id;
            continue;
        }
        if (!opNames.count(run.opName) && !archive.op(run.opName))
            throw std::invalid_argument("run " + run.uid + " belongs to unknown op " + run.opName);
        runIds[run.uid] = archive.createRun(tx, run);
        if (item.contains("candidates"))
            memberships.emplace_back(runIds[run.uid], &item.at("candidates"));
        ++stats.runs;
    }
    for (const auto &item : document.at("candidates")) {
        Candidate candidate = item.get<Candidate>();
        const std::string expectedId = makeCandidateId(candidate.source, candidate.launchPlan);
        if (!candidate.id.empty() && candidate.id != expectedId)
            throw std::invalid_argument("candidate " + candidate.id + " does not match its content hash");
        candidate.id = expectedId;
        if (!opNames.count(candidate.opName) && !archive.op(candidate.opName))
            throw std::invalid_argument("candidate " + candidate.id + " belongs to unknown op " + candidate.opName);
        candidate.runId = lookupRun(runIds, item);
        if (item.contains("provenance"))
            candidate.provenance = provenanceFromJson(item.at("provenance"));
        if (archive.addCandidate(tx, candidate, generationIn(document, item)))
            ++stats.candidates;
        else
            ++stats.duplicateCandidates;
        for (const auto &e : item.value("evaluations", json::array())) {
            Evaluation evaluation = e.get<Evaluation>();
            evaluation.candidateId = candidate.id;
            evaluation.runId = lookupRun(runIds, e);
            if (!hasEvaluation(archive, evaluation)) {
                archive.addEvaluation(tx, evaluation);
                ++stats.evaluations;
            }
        }
        for (const auto &v : item.value("verdicts", json::array())) {
            Verdict verdict = v.get<Verdict>();
            verdict.candidateId = candidate.id;
            if (!hasVerdict(archive, verdict)) {
                archive.addVerdict(tx, verdict);
                ++stats.verdicts;
            }
        }
    }
    // Run membership after the candidates exist (a run may also contain candidates first made elsewhere).
    for (const auto &[runId, members] : memberships) {
        for (const auto &member : *members) {
            const auto id = member.at("id").get<std::string>();
            auto candidate = archive.candidate(id);
            if (!candidate)
                throw std::invalid_argument("run lists unknown candidate " + id);
            candidate->runId = runId;
            archive.addCandidate(tx, *candidate, member.value("generation", 0));
        }
    }
    return stats;
}

} // namespace

Expected<ImportStats> importArchive(Archive &archive, const json &document)
{
    if (!document.is_object() || document.value("format", "") != kExportFormat)
        return Error{"not a Kernel Explorer archive export (missing \"format\": \"" + std::string(kExportFormat) + "\")"};
    const int version = document.value("version", 0);
    if (version > kExportFormatVersion)
        return Error{"export format version " + std::to_string(version) + " is newer than this program understands ("
                     + std::to_string(kExportFormatVersion) + ")"};
    try {
        auto tx = archive.begin();
        const ImportStats stats = importDocument(archive, tx, document);
        tx.commit();
        return stats;
    } catch (const json::exception &error) {
        return Error{std::string("malformed export: ") + error.what()};
    } catch (const std::invalid_argument &error) {
        return Error{std::string("malformed export: ") + error.what()};
    }
}

} // namespace kx
