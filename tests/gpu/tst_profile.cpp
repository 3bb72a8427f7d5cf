// kx profile for real: catalog kernels and their eager references under Nsight Compute on GPU 0, and a kernel that
// skips its work caught by its DRAM traffic. Skips without a GPU, without ncu, or where the performance counters
// are not open to this user (ERR_NVGPUCTRPERM).
#include "gputestsupport.h"

#include "core/archive/archive.h"
#include "core/ops/builtinops.h"
#include "core/profile/ncucommand.h"
#include "core/search/templateproposer.h"

#include "childprocess.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>

using namespace kx;

namespace {

[[maybe_unused]] const bool gpuPresent = test::skipWithoutGpu();

// Exits 77 (skipped) with the reason when there is no ncu to profile with.
[[maybe_unused]] const bool ncuPresent = [] {
    if (const auto ncu = findNcu(); !ncu) {
        std::cout << "no Nsight Compute: skipped (" << ncu.error().message << ")\n";
        std::exit(77);
    }
    return true;
}();

struct Profiled
{
    int exitCode = -1;
    std::string out;
    std::string err;
    std::vector<Profile> profiles;
};

// Stores the op and the candidate in a fresh archive and runs kx profile on it.
Profiled profile(const Op &op, const Candidate &candidate)
{
    test::TemporaryDir dir;
    const std::string path = dir.filePath("profile.kxdb");
    {
        auto archive = Archive::open(path);
        REQUIRE(archive);
        auto tx = (*archive)->begin();
        (*archive)->putOp(tx, op);
        (*archive)->addCandidate(tx, candidate);
        tx.commit();
    }
    const auto result = test::runProgram({KX_CLI, "profile", candidate.id.substr(0, 12), "-a", path, "--gpu", "0"}, {},
                                         std::chrono::minutes(10));
    REQUIRE_FALSE(result.timedOut);
    if (result.err.find("ERR_NVGPUCTRPERM") != std::string::npos) {
        std::cout << "the GPU's performance counters are not open to this user: skipped (ERR_NVGPUCTRPERM)\n";
        std::exit(77);
    }
    std::cout << result.out;
    Profiled profiled{result.exitCode, result.out, result.err, {}};
    auto archive = Archive::open(path, ArchiveMode::ReadOnly);
    REQUIRE(archive);
    profiled.profiles = (*archive)->profiles(candidate.id);
    return profiled;
}

Candidate withCode(const Op &op, const std::string &source, const std::string &plan)
{
    Candidate candidate;
    candidate.opName = op.name;
    candidate.source = source;
    candidate.launchPlan = plan;
    candidate.id = makeCandidateId(source, plan);
    return candidate;
}

void checkMeasured(const Profile &profile)
{
    CAPTURE(profile.error);
    CHECK(profile.ok());
    CHECK(profile.metrics.kernels >= 1);
    CHECK(profile.kernels.size() == std::size_t(profile.metrics.kernels));
    REQUIRE(profile.metrics.durationNs);
    CHECK(*profile.metrics.durationNs > 0);
    REQUIRE(profile.metrics.dramBytes());
    CHECK(profile.metrics.achievedBandwidthGBs);
    CHECK(profile.metrics.smThroughputPct);
    CHECK(profile.metrics.achievedOccupancyPct);
    CHECK(profile.metrics.registersPerThread);
    CHECK(profile.metrics.l2HitRatePct);
    CHECK_FALSE(profile.metrics.topStalls.empty());
    CHECK_FALSE(profile.ncuVersion.empty());
    CHECK_FALSE(profile.gpu.name.empty());
    CHECK(profile.gpu.measuredBandwidthGBs > 0);
    REQUIRE(profile.traffic);
    if (!profile.metrics.missing.empty()) {
        std::cout << "  not printed by this ncu:";
        for (const auto &name : profile.metrics.missing)
            std::cout << ' ' << name;
        std::cout << '\n';
    }
}

} // namespace

TEST_CASE("catalog kernels and their eager references are profiled; honest kernels move the bytes they must")
{
    for (const char *name : {"relu", "softmax", "matmul"}) {
        CAPTURE(name);
        const Op *op = findBuiltInOp(name);
        REQUIRE(op);
        const auto candidate = translateOp(*op);
        REQUIRE(candidate);
        const auto profiled = profile(*op, *candidate);
        CAPTURE(profiled.err);
        CHECK(profiled.exitCode == 0);
        REQUIRE(profiled.profiles.size() == 2);
        const Profile &own = profiled.profiles[0];
        const Profile &eager = profiled.profiles[1];
        CHECK(own.target == ProfileTarget::Candidate);
        CHECK(eager.target == ProfileTarget::Eager);
        checkMeasured(own);
        checkMeasured(eager);
        CHECK(own.check == "the profiled run's outputs match the reference");
        CHECK(own.findings.empty());
        // Where the rule judges (inputs beyond L2), an honest kernel moves about what the model says.
        if (own.traffic->judged) {
            REQUIRE(own.traffic->ratio);
            CHECK(*own.traffic->ratio > 0.5);
            CHECK(*own.traffic->ratio < 3.0);
        }
    }
}

TEST_CASE("a relu kernel that skips its work moved too few bytes")
{
    const Op *op = findBuiltInOp("relu");
    REQUIRE(op);
    const auto lazy =
        withCode(*op, R"(
extern "C" __global__ void relu(const float* __restrict__ x, float* __restrict__ out, int n)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        out[0] = fmaxf(x[0], 0.0f);
}
)",
                 test::elementwisePlan("relu", R"json([{"input": "x"}, {"output": "out"}, {"int": "N"}])json"));
    const auto profiled = profile(*op, lazy);
    CHECK(profiled.exitCode == 0);
    REQUIRE(profiled.profiles.size() == 2);
    const Profile &own = profiled.profiles[0];
    CHECK(own.ok());
    REQUIRE(own.traffic);
    CHECK(own.traffic->judged);
    REQUIRE(own.findings.size() == 1);
    CHECK(own.findings[0].kind == "moved-too-few-bytes");
    CHECK(own.check.find("outputs are wrong") != std::string::npos);
    CHECK(profiled.profiles[1].findings.empty());
}
