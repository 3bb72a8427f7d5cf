#pragma once

// What the worker pool suites share: a pool of fake workers (tests/helpers/fakeworker.cpp), requests whose
// description tells the fake worker what to do, and waiting for their completions.
#include "core/eval/workerpool.h"

#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <regex>
#include <string>
#include <vector>

namespace kx::test {

using namespace std::chrono_literals;

// Generous bound for anything that should finish: it only stops a broken pool from hanging the suite.
constexpr auto kPatience = 120s;

inline WorkerPoolOptions fakeOptions(std::vector<std::string> extraArgs = {}, std::vector<int> devices = {0})
{
    WorkerPoolOptions options;
    options.command = {KX_FAKE_WORKER};
    options.command.insert(options.command.end(), extraArgs.begin(), extraArgs.end());
    options.devices = std::move(devices);
    options.startTimeout = 60s;
    options.exitGrace = 5s;
    return options;
}

inline EvaluateRequest request(const std::string &behaviour, double timeoutMs = 60000)
{
    EvaluateRequest request;
    request.op.name = "relu";
    request.candidate.opName = "relu";
    request.candidate.source = "// " + behaviour;
    request.candidate.launchPlan = "{}";
    request.candidate.id = "candidate-" + behaviour;
    request.candidate.description = behaviour;
    request.cubin = std::string("\x7f"
                                "ELF fake cubin\0\x01\x02",
                                20);
    request.arch = "";
    request.settings.timeoutMs = timeoutMs;
    return request;
}

inline Expected<Evaluation> await(std::future<Expected<Evaluation>> future)
{
    if (future.wait_for(kPatience) != std::future_status::ready)
        return Error{"no completion within the test's patience"};
    return future.get();
}

// The pid the fake worker names in its "ok from pid N" message.
inline long workerPid(const Evaluation &evaluation)
{
    std::smatch match;
    static const std::regex pattern("ok from pid ([0-9]+)");
    if (!std::regex_search(evaluation.message, match, pattern))
        return -1;
    return std::stol(match[1]);
}

} // namespace kx::test

// An evaluation came back (not an Error); its error message otherwise.
#define REQUIRE_EVALUATION(result)                                                                                     \
    REQUIRE_MESSAGE((result).hasValue(), ((result).hasValue() ? std::string() : (result).error().message))
