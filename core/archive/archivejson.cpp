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
    return {{"proposer", p.proposer},
            {"model", p.model},
            {"prompt", p.prompt},
            {"promptSha256", p.promptSha256},
            {"response", p.response},
            {"promptTokens", p.promptTokens},
            {"completionTokens", p.completionTokens},
            {"cost", p.cost},
            {"note", p.note}};
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
    json profiles = json::array();
    for (const auto &profile : archive.profiles(candidate.id)) {
        json p = profile;
        p.erase("candidate");
        profiles.push_back(std::move(p));
    }
    // Absent rather than empty, so that exports of archives without profiles read as before.
    if (!profiles.empty())
        item["profiles"] = std::move(profiles);
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

bool hasProfile(const Archive &archive, const Profile &profile)
{
    for (const auto &existing : archive.profiles(profile.candidateId))
        if (existing.createdAtMs == profile.createdAtMs && existing.target == profile.target
            && existing.gpu.fingerprint() == profile.gpu.fingerprint())
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

// Where in the document the import is, for messages: "candidates[2].evaluations[0]".
class Place
{
public:
    void enter(const std::string &list, std::size_t index)
    {
        m_parts.push_back(list + "[" + std::to_string(index) + "]");
    }
    void leave() { m_parts.pop_back(); }
    std::string text() const
    {
        std::string joined;
        for (const auto &part : m_parts)
            joined += (joined.empty() ? "" : ".") + part;
        return joined;
    }

private:
    std::vector<std::string> m_parts;
};

// The array under key, or an error that names it.
const json &listOf(const json &document, const char *key)
{
    const auto it = document.find(key);
    if (it == document.end())
        throw std::invalid_argument(std::string("\"") + key + "\" is missing");
    if (!it->is_array())
        throw std::invalid_argument(std::string("\"") + key + "\" is " + (it->is_object() ? "an " : "a ")
                                    + it->type_name() + ", not an array");
    return *it;
}

// The generation each candidate has in its own run, from the runs' member lists: read once, so that an import
// stays linear in the number of candidates (a search per candidate made 20k kernels take minutes).
class RunGenerations
{
public:
    explicit RunGenerations(const json &document)
    {
        for (const auto &run : listOf(document, "runs"))
            for (const auto &member : run.value("candidates", json::array()))
                m_generations.emplace(std::pair{run.value("uid", std::string()), member.value("id", std::string())},
                                      member.value("generation", 0));
    }

    int of(const json &candidate) const
    {
        if (!candidate.contains("run"))
            return 0;
        const auto found =
            m_generations.find({candidate.at("run").get<std::string>(), candidate.value("id", std::string())});
        return found == m_generations.end() ? 0 : found->second;
    }

private:
    std::map<std::pair<std::string, std::string>, int> m_generations;
};

ImportStats importDocument(Archive &archive, Transaction &tx, const json &document, Place &place)
{
    ImportStats stats;
    std::set<std::string> opNames;
    const json &ops = listOf(document, "ops");
    const json &runs = listOf(document, "runs");
    const json &candidates = listOf(document, "candidates");
    for (std::size_t i = 0; i < ops.size(); ++i) {
        place.enter("ops", i);
        const json &item = ops[i];
        const Op op = item.get<Op>();
        archive.putOp(tx, op, item.value("sourceText", std::string()));
        opNames.insert(op.name);
        ++stats.ops;
        place.leave();
    }
    std::map<std::string, std::int64_t> runIds;
    std::vector<std::pair<std::int64_t, const json *>> memberships;
    const RunGenerations generations(document);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        place.enter("runs", i);
        const json &item = runs[i];
        const Run run = item.get<Run>();
        if (const auto existing = archive.runByUid(run.uid)) {
            runIds[run.uid] = existing->id;
            place.leave();
            continue;
        }
        if (!opNames.count(run.opName) && !archive.op(run.opName))
            throw std::invalid_argument("run " + run.uid + " belongs to unknown op " + run.opName);
        runIds[run.uid] = archive.createRun(tx, run);
        if (item.contains("candidates"))
            memberships.emplace_back(runIds[run.uid], &item.at("candidates"));
        ++stats.runs;
        place.leave();
    }
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        place.enter("candidates", i);
        const json &item = candidates[i];
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
        if (archive.addCandidate(tx, candidate, generations.of(item)))
            ++stats.candidates;
        else
            ++stats.duplicateCandidates;
        const json evaluations = item.value("evaluations", json::array());
        for (std::size_t e = 0; e < evaluations.size(); ++e) {
            place.enter("evaluations", e);
            Evaluation evaluation = evaluations[e].get<Evaluation>();
            evaluation.candidateId = candidate.id;
            evaluation.runId = lookupRun(runIds, evaluations[e]);
            if (!hasEvaluation(archive, evaluation)) {
                archive.addEvaluation(tx, evaluation);
                ++stats.evaluations;
            }
            place.leave();
        }
        const json verdicts = item.value("verdicts", json::array());
        for (std::size_t v = 0; v < verdicts.size(); ++v) {
            place.enter("verdicts", v);
            Verdict verdict = verdicts[v].get<Verdict>();
            verdict.candidateId = candidate.id;
            if (!hasVerdict(archive, verdict)) {
                archive.addVerdict(tx, verdict);
                ++stats.verdicts;
            }
            place.leave();
        }
        const json profiles = item.value("profiles", json::array());
        for (std::size_t p = 0; p < profiles.size(); ++p) {
            place.enter("profiles", p);
            Profile profile = profiles[p].get<Profile>();
            profile.candidateId = candidate.id;
            if (!hasProfile(archive, profile)) {
                archive.addProfile(tx, profile);
                ++stats.profiles;
            }
            place.leave();
        }
        place.leave();
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

// nlohmann's messages start with "[json.exception.type_error.302] ".
std::string withoutExceptionId(const std::string &message)
{
    const auto end = message.find("] ");
    return message.rfind("[json.exception.", 0) == 0 && end != std::string::npos ? message.substr(end + 2) : message;
}

} // namespace

Status checkExportHeader(const json &document)
{
    const std::string expected = std::string("\"format\": \"") + kExportFormat + "\"";
    if (!document.is_object())
        return Error::badInput("not a Kernel Explorer archive export: the document is a "
                               + std::string(document.type_name()) + ", not an object with " + expected);
    const auto format = document.find("format");
    if (format == document.end())
        return Error::badInput("not a Kernel Explorer archive export (missing " + expected + ")");
    if (!format->is_string() || format->get<std::string>() != kExportFormat)
        return Error::badInput("not a Kernel Explorer archive export: \"format\" is " + format->dump().substr(0, 80)
                               + ", expected \"" + kExportFormat + "\"");
    const auto version = document.find("version");
    if (version == document.end())
        return Error::badInput("\"version\" is missing (this program writes " + std::to_string(kExportFormatVersion)
                               + ")");
    if (!version->is_number_integer() || version->get<std::int64_t>() < 1)
        return Error::badInput("\"version\" is " + version->dump().substr(0, 80) + ", not a positive whole number");
    if (version->get<std::int64_t>() > kExportFormatVersion)
        return Error::badInput("export format version " + version->dump() + " is newer than this program understands ("
                               + std::to_string(kExportFormatVersion) + ")");
    return {};
}

Expected<ImportStats> importArchive(Archive &archive, const json &document)
{
    if (const auto header = checkExportHeader(document); !header)
        return header.error();
    Place place;
    const auto malformed = [&place](const std::string &what) {
        const std::string where = place.text();
        return Error::badInput("malformed export: " + (where.empty() ? what : where + ": " + what));
    };
    try {
        auto tx = archive.begin();
        const ImportStats stats = importDocument(archive, tx, document, place);
        tx.commit();
        return stats;
    } catch (const json::exception &error) {
        return malformed(withoutExceptionId(error.what()));
    } catch (const std::invalid_argument &error) {
        return malformed(error.what());
    }
}

} // namespace kx
