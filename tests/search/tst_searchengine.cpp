// The search engine against test doubles: the lineage it records, determinism for a seed, selection, stop conditions,
// baselines prepared ahead, settings, re-timing on several GPUs. Pausing, cancelling, continuing and refusing runs are
// tst_searchlifecycle.
#include "enginetestsupport.h"
#include "fakesearch.h"

#include "core/archive/archive.h"
#include "core/search/population.h"
#include "core/search/searchengine.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <thread>

using namespace kx;
using namespace kx::test;

TEST_CASE("evolves and records the lineage")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    EventLog log;
    SearchEngine engine(path, std::make_unique<test::FakeProposer>(), std::make_shared<test::FakeEvaluator>(),
                        settingsWithSeed(3), generations(5), log.sink());
    const auto runId = engine.start(test::fakeOp());
    REQUIRE(runId);
    engine.wait();
    CHECK(engine.state() == RunState::Finished);

    auto archive = openArchive(path);
    CHECK(archive->run(*runId)->state == RunState::Finished);
    const auto lineage = archive->candidatesOfRun(*runId);
    REQUIRE(lineage.size() > 10);
    CHECK(log.count(SearchEvent::Kind::Proposed) == int(lineage.size()));
    CHECK(log.count(SearchEvent::Kind::Evaluated) == int(lineage.size()));
    CHECK(log.count(SearchEvent::Kind::GenerationFinished) == 6); // translation + 5 generations
    CHECK(log.count(SearchEvent::Kind::Finished) == 1);
    CHECK(lineage.front().parentIds.empty());
    CHECK(lineage.front().origin == Origin::Translated);

    std::map<std::string, Evaluation> results;
    for (const auto &candidate : lineage) {
        const auto evaluations = archive->evaluations(candidate.id);
        REQUIRE(evaluations.size() == std::size_t(1));
        CHECK(evaluations.front().runId == *runId);
        results[candidate.id] = evaluations.front();
    }
    // Every child records its parents; only correct kernels are bred from (repair exists to fix failures).
    for (const auto &candidate : lineage) {
        if (candidate.parentIds.empty())
            continue;
        CHECK(!candidate.description.empty());
        CHECK((candidate.origin == Origin::Mutated || candidate.origin == Origin::Crossover));
        if (candidate.operatorName == "repair")
            continue;
        for (const auto &parent : candidate.parentIds)
            CHECK(results.at(parent).status == EvalStatus::Correct);
    }
    CHECK(std::any_of(lineage.begin(), lineage.end(), [](auto &c) { return c.origin == Origin::Crossover; }));
    CHECK(std::any_of(results.begin(), results.end(), [](auto &r) { return r.second.status != EvalStatus::Correct; }));

    // New-best events improve monotonically and end at the run's best.
    double previous = 0;
    std::string lastBest;
    for (const auto &event : log.events) {
        if (event.kind != SearchEvent::Kind::NewBest)
            continue;
        CHECK(event.evaluation->speedup > previous);
        previous = event.evaluation->speedup;
        lastBest = event.candidate->id;
    }
    CHECK(previous > results.at(lineage.front().id).speedup);
    CHECK(engine.progress().bestCandidateId == lastBest);
}

TEST_CASE("is deterministic for a seed")
{
    TemporaryDir dir;
    const auto first = runSearch(dir.filePath("a.kxdb"), 11, 4);
    const auto second = runSearch(dir.filePath("b.kxdb"), 11, 4);
    const auto other = runSearch(dir.filePath("c.kxdb"), 12, 4);
    CHECK(first == second);
    CHECK(first != other);
}

// Remembers, for every proposal, how many candidates the evaluator had been given by then.
class SubmissionCountingProposer : public test::FakeProposer
{
public:
    explicit SubmissionCountingProposer(std::shared_ptr<test::FakeEvaluator> evaluator)
        : m_evaluator(std::move(evaluator))
    {}
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override
    {
        submittedAtProposal[request.generation].push_back(m_evaluator->submitted());
        return test::FakeProposer::propose(request, stop);
    }
    std::map<int, std::vector<int>> submittedAtProposal; // generation -> count at each proposal

private:
    std::shared_ptr<test::FakeEvaluator> m_evaluator;
};

TEST_CASE("submits each child for evaluation before proposing the next")
{
    TemporaryDir dir;
    auto evaluator = std::make_shared<test::FakeEvaluator>();
    auto proposer = std::make_unique<SubmissionCountingProposer>(evaluator);
    auto *counting = proposer.get();
    SearchEngine engine(dir.filePath("a.kxdb"), std::move(proposer), evaluator, settingsWithSeed(3), generations(3));
    REQUIRE(engine.start(test::fakeOp()));
    engine.wait();
    REQUIRE(counting->submittedAtProposal.size() == 4); // translation + 3 generations
    for (int generation = 1; generation <= 3; ++generation) {
        const auto &counts = counting->submittedAtProposal[generation];
        INFO("generation " << generation);
        REQUIRE(counts.size() >= 4);
        // The first child of a generation is in evaluation while its siblings are still being proposed.
        CHECK(counts.back() > counts.front());
        CHECK(std::is_sorted(counts.begin(), counts.end()));
    }
}

// Remembers the first number each later mutation request's seed gives the proposer.
class FirstDrawProposer : public test::FakeProposer
{
public:
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override
    {
        // From generation 3 on the elite has several members, so selection draws crossover-or-mutation first.
        if (request.kind == ProposalKind::Mutate && request.generation >= 3)
            firstDraws.push_back(SplitMix(request.seed).unit());
        return test::FakeProposer::propose(request, stop);
    }
    std::vector<double> firstDraws;
};

TEST_CASE("the proposer's random numbers do not repeat the engine's selection draws")
{
    TemporaryDir dir;
    auto proposer = std::make_unique<FirstDrawProposer>();
    auto *recording = proposer.get();
    SearchSettings settings = settingsWithSeed(9);
    settings.childrenPerGeneration = 8;
    SearchEngine engine(dir.filePath("a.kxdb"), std::move(proposer), std::make_shared<test::FakeEvaluator>(), settings,
                        generations(6));
    REQUIRE(engine.start(test::fakeOp()));
    engine.wait();
    const auto &draws = recording->firstDraws;
    REQUIRE(draws.size() >= 12);
    // A mutation is chosen when the selection's draw is at least the crossover rate (0.25); the proposer's
    // own first draw must not be bound by that.
    const auto below = std::count_if(draws.begin(), draws.end(), [](double d) { return d < 0.25; });
    CHECK(below >= 2);
}

TEST_CASE("selection ranks kernel times against the median eager time of the run")
{
    const auto correct = [](const std::string &id, const std::string &gpu, double kernelMs, double eagerMs) {
        Evaluation evaluation;
        evaluation.status = EvalStatus::Correct;
        evaluation.gpu.name = gpu;
        evaluation.timing.medianMs = kernelMs;
        evaluation.baseline.medianMs = eagerMs;
        evaluation.speedup = eagerMs / kernelMs;
        Candidate candidate = test::makeFakeCandidate(int(id.size()));
        candidate.id = id;
        return std::pair{candidate, evaluation};
    };
    Population population;
    for (const auto &[candidate, evaluation] : {correct("slow-kernel-slow-eager", "A", 1.0, 3.0),
                                                correct("fast", "A", 0.8, 1.2), correct("other-gpu", "B", 0.5, 0.6)}) {
        population.add(candidate, 1);
        population.setEvaluation(candidate.id, evaluation);
    }
    const auto elite = population.elite(3);
    REQUIRE(elite.size() == std::size_t(3));
    // On GPU A the median eager time is 2.1 ms: 2.1 / 0.8 beats 2.1 / 1.0, whatever each one's own speedup.
    CHECK(elite[0].candidate.id == std::string("fast"));
    CHECK(elite[0].fitness == doctest::Approx(2.1 / 0.8));
    CHECK(elite[1].candidate.id == std::string("slow-kernel-slow-eager"));
    CHECK(elite[2].candidate.id == std::string("other-gpu")); // 0.6 / 0.5 on its own GPU
    CHECK(elite[2].fitness == doctest::Approx(1.2));
}

TEST_CASE("stop conditions")
{
    const struct
    {
        const char *name;
        int kind, limit, below, at;
    } rows[] = {
        {"generations", 0, 3, 2, 3},
        {"candidates", 1, 10, 9, 10},
        {"time", 2, 5, 4, 5},
        {"no improvement", 3, 2, 1, 2},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto make = [&](int value) {
                SearchProgress progress;
                progress.generation = progress.evaluated = progress.generationsWithoutImprovement = value;
                progress.elapsedSeconds = value;
                return progress;
            };
            std::unique_ptr<StopCondition> condition;
            switch (row.kind) {
            case 0: condition = makeGenerationLimit(row.limit); break;
            case 1: condition = makeCandidateLimit(row.limit); break;
            case 2: condition = makeTimeLimit(row.limit); break;
            default: condition = makeNoImprovementLimit(row.limit); break;
            }
            CHECK(!condition->reached(make(row.below)));
            CHECK(condition->reached(make(row.at)));
            CHECK(!condition->describe().empty());
        }
    }
}

namespace {

// Prepares an Inductor baseline (slowly, as a first package build is) and records the settings of every
// evaluation it is asked for.
class PreparingEvaluator : public test::FakeEvaluator
{
public:
    explicit PreparingEvaluator(std::string packagePath)
        : m_packagePath(std::move(packagePath))
    {}

    BaselinePreparation prepareBaselines(const Op &op, const EvalSettings &settings, std::stop_token) override
    {
        std::this_thread::sleep_for(std::chrono::milliseconds(1200));
        BaselinePreparation prepared{settings, std::nullopt, "Inductor baseline: a package for " + op.name};
        prepared.settings.inductor.command = {"runner", "--package", m_packagePath};
        prepared.settings.inductor.method = baselinemethod::kAotiPackage;
        InductorPackage package;
        package.path = m_packagePath;
        package.sha256 = "sha-of-the-package";
        package.arch = "sm_90";
        package.torchVersion = "2.11.0";
        package.shapes = "N=1024";
        prepared.inductorPackage = package;
        return prepared;
    }

    std::future<Evaluation> evaluate(const Op &op, const Candidate &candidate, const EvalSettings &settings) override
    {
        {
            std::lock_guard lock(mutex);
            received.push_back(settings);
        }
        return FakeEvaluator::evaluate(op, candidate, settings);
    }

    std::mutex mutex;
    std::vector<EvalSettings> received;

private:
    std::string m_packagePath;
};

} // namespace

TEST_CASE("the baselines are prepared before the first evaluation, outside the run's time budget")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    const auto package = dir.filePath("package.pt2");
    REQUIRE(test::writeFile(package, "PK package bytes"));
    auto evaluator = std::make_shared<PreparingEvaluator>(package);
    EventLog log;
    auto settings = settingsWithSeed(3);
    settings.budget.seconds = 1; // shorter than the preparation
    settings.eval.precision = Precision::Tf32;
    SearchEngine engine(path, std::make_unique<test::FakeProposer>(), evaluator, settings, {}, log.sink());
    const auto run = engine.start(test::fakeOp());
    REQUIRE(run);
    engine.wait();

    // More than the translation was evaluated: the second of budget started after the preparation.
    std::lock_guard lock(evaluator->mutex);
    CHECK(evaluator->received.size() > 1);
    for (const auto &received : evaluator->received) {
        CHECK(received.inductor.command == std::vector<std::string>{"runner", "--package", package});
        CHECK(received.precision == Precision::Tf32);
    }
    CHECK(log.count(SearchEvent::Kind::Note) == 2); // "preparing ..." and how the Inductor baseline is timed
    const auto archive = openArchive(path);
    const auto packages = archive->inductorPackages("fake-op");
    REQUIRE(packages.size() == 1);
    CHECK(packages[0].sha256 == "sha-of-the-package");
    CHECK(archive->inductorPackageBytes("sha-of-the-package") == "PK package bytes");
}

TEST_CASE("settings round-trip")
{
    SearchSettings settings = settingsWithSeed(99);
    settings.similarOps = {"gelu"};
    settings.retimeTop = 5;
    settings.eval.trials = 7;
    settings.eval.precision = Precision::KernelBench;
    settings.eval.inductorBaseline = false;
    settings.eval.baselineEveryEvaluations = 17;
    settings.eval.baselineEveryMinutes = 1.5;
    settings.budget = {12, 300, 60.0, 4};
    const auto back = searchSettingsFromJson(toJson(settings));
    REQUIRE(back);
    CHECK(back->seed == std::uint64_t(99));
    CHECK(back->similarOps == settings.similarOps);
    CHECK(back->retimeTop == 5);
    CHECK(back->eval == settings.eval);
    CHECK(back->budget == settings.budget);
    CHECK(makeStopConditions(settings.budget).size() == std::size_t(4));
    CHECK(!searchSettingsFromJson("{nope"));
    // A run stored before precision policies continues under fp32, with the Inductor baseline.
    const auto older = searchSettingsFromJson(R"({"seed":5,"eval":{"trials":3}})");
    REQUIRE(older);
    CHECK(older->eval.trials == 3);
    CHECK(older->eval.precision == Precision::Fp32);
    CHECK(older->eval.inductorBaseline);
    CHECK_FALSE(searchSettingsFromJson(R"({"eval":{"precision":"fp4"}})"));
}

namespace {

// Two cards of one model: evaluate() runs wherever, evaluateOn() on the card asked for (the second 2% slower).
class TwoCardEvaluator : public test::FakeEvaluator
{
public:
    std::vector<GpuInfo> gpus() override { return {card(0), card(1)}; }
    std::future<Evaluation> evaluateOn(std::size_t gpu, const Op &, const Candidate &candidate,
                                       const EvalSettings &) override
    {
        ++retimed[gpu];
        Evaluation evaluation = fakeEvaluation(test::genomeValue(candidate));
        evaluation.gpu = card(int(gpu));
        evaluation.timing.medianMs *= gpu == 0 ? 1.0 : 1.02;
        std::promise<Evaluation> promise;
        promise.set_value(evaluation);
        return promise.get_future();
    }
    static GpuInfo card(int index)
    {
        GpuInfo gpu = fakeEvaluation(1).gpu;
        gpu.uuid = "GPU-card-" + std::to_string(index);
        return gpu;
    }
    std::atomic<int> retimed[2]{0, 0};
};

} // namespace

TEST_CASE("on several GPUs the best kernels are timed again on every GPU")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    EventLog log;
    auto evaluator = std::make_shared<TwoCardEvaluator>();
    auto settings = settingsWithSeed(3);
    settings.retimeTop = 3;
    SearchEngine engine(path, std::make_unique<test::FakeProposer>(), evaluator, settings, generations(3), log.sink());
    const auto runId = engine.start(test::fakeOp());
    REQUIRE(runId);
    engine.wait();
    CHECK(engine.state() == RunState::Finished);
    CHECK(evaluator->retimed[0] == 3);
    CHECK(evaluator->retimed[1] == 3);

    auto archive = openArchive(path);
    int retimedKernels = 0;
    for (const auto &candidate : archive->candidatesOfRun(*runId)) {
        const auto evaluations = archive->evaluations(candidate.id);
        if (evaluations.size() == 1)
            continue;
        ++retimedKernels;
        // The search's own evaluation and one on each card, each with its card: two GPUs of one model stay apart.
        REQUIRE(evaluations.size() == 3);
        std::set<std::string> cards;
        for (const auto &evaluation : evaluations) {
            CHECK(evaluation.runId == *runId);
            cards.insert(evaluation.gpu.uuid);
        }
        CHECK(cards.count("GPU-card-0") == 1);
        CHECK(cards.count("GPU-card-1") == 1);
    }
    CHECK(retimedKernels == 3);
    // One line per kernel with both times and their spread.
    std::lock_guard lock(log.mutex);
    const auto lines = std::count_if(log.events.begin(), log.events.end(), [](const SearchEvent &event) {
        return event.kind == SearchEvent::Kind::Note && event.message.find("on 2 GPUs:") != std::string::npos
               && event.message.find("GPU-card-1") != std::string::npos
               && event.message.find("spread 2.0%") != std::string::npos;
    });
    CHECK(lines == 3);

    // Continuing the finished run, already within its limits, times nothing again and adds no evaluation.
    const auto before = archive->info().evaluations;
    auto again = std::make_shared<TwoCardEvaluator>();
    SearchEngine continued(path, std::make_unique<test::FakeProposer>(), again, settings, generations(3));
    REQUIRE(continued.continueRun(*runId));
    continued.wait();
    CHECK(continued.state() == RunState::Finished);
    CHECK(again->retimed[0] + again->retimed[1] == 0);
    CHECK(openArchive(path)->info().evaluations == before);
}

TEST_CASE("re-timing is off with one GPU or a top of 0")
{
    TemporaryDir dir;
    auto evaluator = std::make_shared<TwoCardEvaluator>();
    auto settings = settingsWithSeed(3);
    settings.retimeTop = 0;
    SearchEngine engine(dir.filePath("a.kxdb"), std::make_unique<test::FakeProposer>(), evaluator, settings,
                        generations(2));
    REQUIRE(engine.start(test::fakeOp()));
    engine.wait();
    CHECK(engine.state() == RunState::Finished);
    CHECK(evaluator->retimed[0] + evaluator->retimed[1] == 0);
}
