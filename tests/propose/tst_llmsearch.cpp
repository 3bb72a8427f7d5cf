// The LLM proposer end to end: against a local chat server, inside the mixed proposer, inside a search
// whose candidates keep their provenance and token sums in the archive (schema v4, export/import).
#include "fakechatserver.h"
#include "temporarydir.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/schema.h"
#include "core/ops/builtinops.h"
#include "core/propose/costledger.h"
#include "core/propose/llmproposer.h"
#include "core/propose/mixedproposer.h"
#include "core/propose/proposerfactory.h"
#include "core/search/searchengine.h"
#include "core/search/templateproposer.h"
#include "core/util/hash.h"

#include <doctest/doctest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

using namespace kx;
using namespace kx::test;

namespace {

const Op &relu()
{
    return *findBuiltInOp("relu");
}

LlmSettings settingsFor(const FakeChatServer &server)
{
    LlmSettings settings;
    settings.endpoint = server.endpoint();
    settings.model = "fake-model";
    settings.maxRetries = 1;
    settings.retryBaseSeconds = 0.01;
    settings.pricePromptPerMillion = 2.0;
    settings.priceCompletionPerMillion = 8.0;
    return settings;
}

std::unique_ptr<LlmProposer> llmProposer(const FakeChatServer &server, std::shared_ptr<CostLedger> ledger = {})
{
    const auto templates = PromptTemplates::load(KX_PROMPTS_DIR);
    REQUIRE(templates);
    return std::make_unique<LlmProposer>(ChatClient(settingsFor(server)), PromptBuilder(*templates), std::move(ledger));
}

ProposalRequest translateRelu(std::uint64_t seed = 1)
{
    ProposalRequest request;
    request.op = relu();
    request.kind = ProposalKind::Translate;
    request.seed = seed;
    return request;
}

// A ReLU candidate whose block size varies with n, so every answer is a new kernel.
std::string reluAnswer(int n)
{
    const int block = 32 * (1 + n % 32);
    return "Variant " + std::to_string(n) + ": block size " + std::to_string(block)
           + ".\n\n```cuda\n"
             "extern \"C\" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int "
             "n)\n{\n"
             "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) out[i] = fmaxf(x[i], "
             "0.0f);\n}\n```\n\n"
             "```json\n{\"steps\": [{\"kernel\": \"relu_kernel\", \"grid\": [\"ceil_div(N, "
           + std::to_string(block) + ")\"], \"block\": [\"" + std::to_string(block)
           + "\"], \"args\": [{\"input\": \"x\"}, {\"output\": \"out\"}, {\"int\": \"N\"}]}]}\n```\n";
}

// Test double: the "speedup" is a known function of the block size in the plan, peaking at 256.
class BlockSizeEvaluator : public CandidateEvaluator
{
public:
    std::future<Evaluation> evaluate(const Op &, const Candidate &candidate, const EvalSettings &) override
    {
        std::smatch match;
        static const std::regex block(R"re("block": \["(\d+)"\])re");
        Evaluation evaluation;
        evaluation.gpu.name = "Fake GPU";
        if (std::regex_search(candidate.launchPlan, match, block)) {
            const int size = std::stoi(match[1]);
            evaluation.status = EvalStatus::Correct;
            evaluation.baseline.medianMs = 1.0;
            evaluation.speedup = 1.0 + (1024.0 - std::abs(size - 256)) / 1024.0;
            evaluation.timing.medianMs = 1.0 / evaluation.speedup;
        } else {
            evaluation.status = EvalStatus::PlanError;
            evaluation.message = "no block size";
        }
        std::promise<Evaluation> promise;
        promise.set_value(evaluation);
        return promise.get_future();
    }
    std::vector<GpuInfo> gpus() override
    {
        GpuInfo gpu;
        gpu.name = "Fake GPU";
        return {gpu};
    }
};

} // namespace

TEST_CASE("the LLM proposer turns a good answer into a candidate with provenance and cost")
{
    FakeChatServer server;
    server.script({answer(readDataFile("good-answer.md"), 1000, 500)});
    auto ledger = std::make_shared<CostLedger>(2.0, 8.0);
    auto proposer = llmProposer(server, ledger);
    const auto result = proposer->propose(translateRelu(), {});
    REQUIRE_MESSAGE(result.candidates.size() == 1, result.failure);
    const auto &candidate = result.candidates[0];
    CHECK(candidate.operatorName == "llm-translate");
    CHECK(candidate.description == "ReLU with one element per thread and read-only loads.");
    REQUIRE(candidate.provenance);
    const auto &p = *candidate.provenance;
    CHECK(p.proposer == "llm");
    CHECK(p.model == "fake-model-1");
    CHECK(p.promptTokens == 1000);
    CHECK(p.completionTokens == 500);
    CHECK(p.cost == doctest::Approx((1000 * 2.0 + 500 * 8.0) / 1e6));
    CHECK(p.promptSha256 == sha256Hex(p.prompt));
    CHECK(p.response == readDataFile("good-answer.md"));
    // The stored prompt is what was sent.
    const auto sent = server.received().at(0).at("messages");
    CHECK(p.prompt.find(sent[1].at("content").get<std::string>()) != std::string::npos);
    CHECK(ledger->totals().calls == 1);
    CHECK(ledger->totals().cost == doctest::Approx(p.cost));
}

TEST_CASE("unusable answers are failures with reasons, and their tokens are still counted")
{
    FakeChatServer server;
    auto ledger = std::make_shared<CostLedger>(1.0, 1.0);
    auto proposer = llmProposer(server, ledger);

    server.script({reply(200, completionBody(readDataFile("truncated-answer.md"), 50, 4096, "length"))});
    auto result = proposer->propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("truncated") != std::string::npos);
    CHECK(result.failure.find("--max-tokens") != std::string::npos);

    server.script({reply(502, readDataFile("gateway-error.html"), "text/html")});
    result = proposer->propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("HTTP 502") != std::string::npos);

    server.script({answer(readDataFile("gateway-error.html"))});
    result = proposer->propose(translateRelu(), {});
    CHECK(result.failure.find("HTML page") != std::string::npos);

    const auto totals = ledger->totals();
    CHECK(totals.calls == 2);
    CHECK(totals.failedCalls == 2);
    CHECK(totals.completionTokens == 4096 + 80);
}

TEST_CASE("the mixed proposer picks by weight from the seed and falls back to the template proposer")
{
    FakeChatServer server;
    server.script({reply(500, "down", "text/plain")});
    std::vector<MixedProposer::Entry> entries;
    entries.push_back({std::make_unique<TemplateProposer>(), 0.7});
    entries.push_back({llmProposer(server), 0.3});
    MixedProposer mixed(std::move(entries), 0);

    int llm = 0;
    for (std::uint64_t seed = 0; seed < 2000; ++seed) {
        CHECK(mixed.pick(seed) == mixed.pick(seed));
        llm += mixed.pick(seed) == 1 ? 1 : 0;
    }
    CHECK(llm > 500);
    CHECK(llm < 700);

    std::uint64_t llmSeed = 0;
    while (mixed.pick(llmSeed) != 1)
        ++llmSeed;
    const auto result = mixed.propose(translateRelu(llmSeed), {});
    REQUIRE_MESSAGE(result.candidates.size() == 1, result.failure);
    REQUIRE(result.candidates[0].provenance);
    CHECK(result.candidates[0].provenance->proposer == "template");
    CHECK(result.candidates[0].provenance->note.find("fallback: llm failed") != std::string::npos);
    CHECK(result.candidates[0].provenance->note.find("HTTP 500") != std::string::npos);

    std::uint64_t templateSeed = 0;
    while (mixed.pick(templateSeed) != 0)
        ++templateSeed;
    const int before = server.requestCount();
    const auto plain = mixed.propose(translateRelu(templateSeed), {});
    REQUIRE(plain.candidates.size() == 1);
    CHECK_FALSE(plain.candidates[0].provenance);
    CHECK(server.requestCount() == before);
}

TEST_CASE("proposer settings are checked, and the factory builds each kind")
{
    ProposerSettings settings;
    CHECK(checkProposerSettings(settings));
    CHECK_FALSE(proposerKindFromString("oracle"));
    CHECK(proposerKindFromString("mix") == ProposerKind::Mix);
    settings.kind = ProposerKind::Llm;
    const auto noModel = checkProposerSettings(settings);
    REQUIRE_FALSE(noModel);
    CHECK(noModel.error().message.find("--model") != std::string::npos);
    settings.llm.model = "m";
    settings.promptsDir = KX_PROMPTS_DIR;
    CHECK(checkProposerSettings(settings));
    settings.llm.endpoint = "not a url";
    CHECK_FALSE(checkProposerSettings(settings));
    settings.llm.endpoint = "http://127.0.0.1:1/v1";
    settings.kind = ProposerKind::Command;
    CHECK_FALSE(checkProposerSettings(settings));
    settings.command.command = "true";
    CHECK(checkProposerSettings(settings));
    settings.kind = ProposerKind::Mix;
    settings.llmShare = 1.5;
    CHECK_FALSE(checkProposerSettings(settings));
    settings.llmShare = 0.3;
    const auto resources = ProposerResources::forSettings(settings);
    for (const ProposerKind kind :
         {ProposerKind::Template, ProposerKind::Llm, ProposerKind::Command, ProposerKind::Mix}) {
        settings.kind = kind;
        const auto proposer = makeProposer(settings, resources);
        REQUIRE_MESSAGE(proposer, (proposer ? "" : proposer.error().message));
        CHECK((*proposer)->name() == std::string(toString(kind)));
    }
}

TEST_CASE("a search with the LLM proposer stores provenance and token sums, and they survive export/import")
{
    FakeChatServer server;
    server.setHandler([](const nlohmann::json &, int index) { return answer(reluAnswer(index), 100 + index, 40); });
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto archivePath = temp.filePath("archive.kxdb");
    auto ledger = std::make_shared<CostLedger>(2.0, 8.0);
    SearchSettings settings;
    settings.seed = 7;
    settings.childrenPerGeneration = 3;
    settings.budget.generations = 2;
    SearchEngine engine(archivePath, llmProposer(server, ledger), std::make_shared<BlockSizeEvaluator>(), settings);
    const auto runId = engine.start(relu());
    REQUIRE_MESSAGE(runId, (runId ? "" : runId.error().message));
    engine.wait();
    REQUIRE((engine.state() == RunState::Finished));

    auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
    REQUIRE(archive);
    const auto candidates = (*archive)->candidatesOfRun(*runId);
    REQUIRE(candidates.size() == 7); // one translation, three children in each of two generations
    std::int64_t promptTokens = 0;
    for (const auto &candidate : candidates) {
        const auto provenance = (*archive)->provenance(candidate.id);
        REQUIRE(provenance);
        CHECK(provenance->proposer == "llm");
        CHECK(provenance->completionTokens == 40);
        CHECK(provenance->promptSha256 == sha256Hex(provenance->prompt));
        CHECK(provenance->response.find(candidate.source.substr(0, 40)) != std::string::npos);
        promptTokens += provenance->promptTokens;
        CHECK_FALSE((*archive)->evaluations(candidate.id).empty());
    }
    const auto cost = (*archive)->runCost(*runId);
    CHECK(cost.candidates == 7);
    CHECK(cost.promptTokens == promptTokens);
    CHECK(cost.completionTokens == 7 * 40);
    CHECK(cost.cost == doctest::Approx(ledger->totals().cost));
    CHECK(ledger->totals().calls == server.requestCount());
    // Later prompts list earlier variants with their speeds.
    const auto last = server.received().back().at("messages")[1].at("content").get<std::string>();
    CHECK(last.find("Earlier variants, fastest first") != std::string::npos);
    CHECK(last.find("| 1 | ") != std::string::npos);

    const auto exported = exportArchive(**archive);
    auto copy = Archive::open(temp.filePath("copy.kxdb"));
    REQUIRE(copy);
    const auto imported = importArchive(**copy, exported);
    REQUIRE_MESSAGE(imported, (imported ? "" : imported.error().message));
    CHECK(exportArchive(**copy).dump() == exported.dump());
    const auto copiedRun = (*copy)->runByUid((*archive)->run(*runId)->uid);
    REQUIRE(copiedRun);
    const auto copiedCost = (*copy)->runCost(copiedRun->id);
    CHECK(copiedCost.promptTokens == cost.promptTokens);
    CHECK(copiedCost.cost == doctest::Approx(cost.cost));
    CHECK((*copy)->provenance(candidates[0].id) == (*archive)->provenance(candidates[0].id));
}

TEST_CASE("an API key handed in at run start reaches the server but is stored nowhere in the archive")
{
    const std::string key = "sk-kx-never-store-7f3a9c2e";
    FakeChatServer server;
    server.setHandler([](const nlohmann::json &, int index) { return answer(reluAnswer(index), 100, 40); });
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto archivePath = temp.filePath("archive.kxdb");
    ProposerSettings proposer;
    proposer.kind = ProposerKind::Mix;
    proposer.llmShare = 0.5;
    proposer.llm = settingsFor(server);
    proposer.llm.apiKeyEnv = "KX_TEST_UNSET_KEY_VARIABLE";
    proposer.llm.apiKey = key;
    proposer.promptsDir = KX_PROMPTS_DIR;
    const auto resources = ProposerResources::forSettings(proposer);
    auto made = makeProposer(proposer, resources);
    REQUIRE_MESSAGE(made, (made ? "" : made.error().message));
    SearchSettings settings;
    settings.seed = 5;
    settings.childrenPerGeneration = 4;
    settings.budget.generations = 2;
    std::int64_t runId = 0;
    {
        SearchEngine engine(archivePath, std::move(*made), std::make_shared<BlockSizeEvaluator>(), settings);
        const auto started = engine.start(relu());
        REQUIRE_MESSAGE(started, (started ? "" : started.error().message));
        runId = *started;
        engine.wait();
        REQUIRE((engine.state() == RunState::Finished));
    }
    // The key was used: otherwise its absence below would prove nothing.
    REQUIRE(server.requestCount() > 0);
    for (const auto &authorization : server.authorizations())
        CHECK(authorization == "Bearer " + key);

    auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
    REQUIRE(archive);
    const auto run = (*archive)->run(runId);
    REQUIRE(run);
    CHECK(run->settings.find(key) == std::string::npos);
    CHECK(run->environment.find(key) == std::string::npos);
    CHECK((*archive)->runCost(runId).candidates > 0);
    CHECK(exportArchive(**archive).dump().find(key) == std::string::npos);
    archive->reset();
    // Nor in any byte of the database, its journal or anything else written next to it.
    for (const auto &entry : std::filesystem::directory_iterator(temp.path())) {
        std::ifstream file(entry.path(), std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
        CHECK_MESSAGE(bytes.find(key) == std::string::npos, entry.path().string());
    }
}

TEST_CASE("a run's cost counts the candidates of models and commands, not the template proposer standing in")
{
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto archivePath = temp.filePath("archive.kxdb");
    auto archive = Archive::open(archivePath);
    REQUIRE_MESSAGE(archive, (archive ? "" : archive.error().message));
    auto tx = (*archive)->begin();
    (*archive)->putOp(tx, relu());
    Run run;
    run.opName = "relu";
    const std::int64_t runId = (*archive)->createRun(tx, run);
    const std::int64_t otherRunId = (*archive)->createRun(tx, run);
    int made = 0;
    const auto add = [&](std::int64_t inRun, std::optional<CandidateProvenance> provenance) {
        Candidate candidate;
        candidate.opName = "relu";
        candidate.source = "__global__ void k() { /* " + std::to_string(++made) + " */ }";
        candidate.launchPlan = "{}";
        candidate.runId = inRun;
        candidate.provenance = std::move(provenance);
        candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
        REQUIRE((*archive)->addCandidate(tx, candidate));
    };
    add(runId, CandidateProvenance{"llm", "gpt-x", "p", sha256Hex("p"), "r", 1000, 200, 0.5, ""});
    add(runId, CandidateProvenance{"command", "./ask.sh", "p", sha256Hex("p"), "r", 0, 0, 0, ""});
    add(runId, CandidateProvenance{"template", "", "", "", "", 0, 0, 0, "fallback: llm failed: HTTP 500"});
    add(runId, std::nullopt);
    add(otherRunId, CandidateProvenance{"llm", "gpt-x", "q", sha256Hex("q"), "s", 50, 5, 0.01, ""});
    tx.commit();

    const RunCost cost = (*archive)->runCost(runId);
    CHECK(cost.candidates == 2);
    CHECK(cost.promptTokens == 1000);
    CHECK(cost.completionTokens == 200);
    CHECK(cost.cost == doctest::Approx(0.5));
    CHECK((*archive)->runCost(otherRunId).candidates == 1);
    const RunCost none = (*archive)->runCost(otherRunId + 1);
    CHECK(none.candidates == 0);
    CHECK(none.promptTokens == 0);
}

TEST_CASE("a version 3 archive upgrades to version 4 and keeps its candidates")
{
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto archivePath = temp.filePath("archive.kxdb");
    {
        sqlite3 *db = nullptr;
        REQUIRE(sqlite3_open(archivePath.c_str(), &db) == SQLITE_OK);
        schema::migrate(db, 3);
        sqlite3_close(db);
    }
    {
        // Fill it as a version 3 program would (the candidate_provenance table does not exist yet).
        sqlite3 *db = nullptr;
        REQUIRE(sqlite3_open(archivePath.c_str(), &db) == SQLITE_OK);
        REQUIRE(sqlite3_exec(
                    db,
                    "INSERT INTO ops VALUES('relu', 'builtin', '{}', '', 1, 1);"
                    "INSERT INTO candidates(id, op_name, source, launch_plan, origin, operator, description,"
                    " run_id, created_at) VALUES('c1', 'relu', 's', '{}', 'translated', 'translate', '', NULL, 1);",
                    nullptr, nullptr, nullptr)
                == SQLITE_OK);
        sqlite3_close(db);
    }
    auto archive = Archive::open(archivePath);
    REQUIRE_MESSAGE(archive, (archive ? "" : archive.error().message));
    CHECK((*archive)->schemaVersion() == Archive::currentSchemaVersion());
    CHECK_FALSE((*archive)->provenance("c1"));
    CandidateProvenance provenance{"command", "./ask.sh", "prompt", sha256Hex("prompt"), "answer", 0, 0, 0, ""};
    auto tx = (*archive)->begin();
    (*archive)->setProvenance(tx, "c1", provenance);
    tx.commit();
    CHECK((*archive)->provenance("c1") == provenance);
}
