#pragma once

// Test doubles for the search engine: a proposer whose genome is one integer and an evaluator whose
// "speedup" is a known function of it. Used by tst_searchengine and the searchrunner helper.
#include "core/search/candidateevaluator.h"
#include "core/search/proposer.h"

#include <nlohmann/json.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <thread>

namespace kx::test {

inline int genomeValue(const Candidate &candidate)
{
    return nlohmann::json::parse(candidate.genome).at("x").get<int>();
}

inline Candidate makeFakeCandidate(int x)
{
    Candidate candidate;
    candidate.source = "extern \"C\" __global__ void k(float *out) { out[0] = " + std::to_string(x) + "; }\n";
    candidate.launchPlan = R"({"steps":[]})";
    candidate.genome = nlohmann::json{{"x", x}}.dump();
    return candidate;
}

class FakeProposer : public Proposer
{
public:
    std::string name() const override { return "fake"; }
    ProposalResult propose(const ProposalRequest &request, std::stop_token) override
    {
        ++calls;
        if (!request.steppingStones.empty())
            ++requestsWithStones;
        const int step = int(request.seed % 7) - 3;
        Candidate child;
        switch (request.kind) {
        case ProposalKind::Translate:
            child = makeFakeCandidate(40 + int(request.seed % 5));
            child.origin = Origin::Translated;
            break;
        case ProposalKind::Mutate:
            child = makeFakeCandidate(genomeValue(request.parents[0].candidate) + (step == 0 ? 4 : step * 2));
            child.origin = Origin::Mutated;
            break;
        case ProposalKind::Crossover:
            child = makeFakeCandidate(
                (genomeValue(request.parents[0].candidate) + genomeValue(request.parents[1].candidate)) / 2 + 1);
            child.origin = Origin::Crossover;
            break;
        case ProposalKind::Repair:
            child = makeFakeCandidate(genomeValue(request.parents[0].candidate) + 1);
            child.origin = Origin::Mutated;
            break;
        }
        child.operatorName = toString(request.kind);
        child.description = std::string(toString(request.kind)) + " to x=" + std::to_string(genomeValue(child));
        for (const auto &parent : request.parents)
            child.parentIds.push_back(parent.candidate.id);
        return {{child}, {}};
    }
    std::atomic<int> calls{0};
    std::atomic<int> requestsWithStones{0};
};

/// Speedup peaks at x = 80; multiples of 7 are "incorrect". Optionally holds every evaluation until released.
/// Evaluations run on detached threads behind promises, as a real evaluator's would: an abandoned future
/// never blocks the engine.
class FakeEvaluator : public CandidateEvaluator
{
public:
    std::future<Evaluation> evaluate(const Op &, const Candidate &candidate, const EvalSettings &) override
    {
        const int x = genomeValue(candidate);
        ++m_gate->submitted;
        auto promise = std::make_shared<std::promise<Evaluation>>();
        auto future = promise->get_future();
        std::thread([gate = m_gate, promise, x] {
            {
                std::unique_lock lock(gate->mutex);
                gate->released.wait(lock, [&] { return !gate->holding; });
            }
            ++gate->evaluations;
            promise->set_value(fakeEvaluation(x));
        }).detach();
        return future;
    }
    std::vector<GpuInfo> gpus() override
    {
        GpuInfo gpu;
        gpu.name = "Fake GPU";
        return {gpu};
    }
    void hold()
    {
        std::lock_guard lock(m_gate->mutex);
        m_gate->holding = true;
    }
    void release()
    {
        {
            std::lock_guard lock(m_gate->mutex);
            m_gate->holding = false;
        }
        m_gate->released.notify_all();
    }
    int evaluations() const { return m_gate->evaluations; }
    int submitted() const { return m_gate->submitted; }

    static Evaluation fakeEvaluation(int x)
    {
        Evaluation evaluation;
        evaluation.gpu.name = "Fake GPU";
        evaluation.gpu.computeCapability = "9.0";
        if (x % 7 == 0) {
            evaluation.status = EvalStatus::Incorrect;
            evaluation.message = "x is a multiple of 7";
            return evaluation;
        }
        evaluation.status = EvalStatus::Correct;
        evaluation.baseline.medianMs = 1.0;
        evaluation.speedup = 1.0 + double(100 - std::abs(x - 80)) / 100.0;
        evaluation.timing.medianMs = 1.0 / evaluation.speedup;
        return evaluation;
    }

private:
    struct Gate
    {
        std::mutex mutex;
        std::condition_variable released;
        bool holding = false;
        std::atomic<int> evaluations{0};
        std::atomic<int> submitted{0};
    };
    std::shared_ptr<Gate> m_gate = std::make_shared<Gate>();
};

inline Op fakeOp()
{
    Op op;
    op.name = "fake-op";
    op.inputs = {TensorSpec{"x", {"N"}}};
    op.outputs = {TensorSpec{"out", {"N"}}};
    op.shapeSets = {{{"N", 1024}}};
    return op;
}

} // namespace kx::test
