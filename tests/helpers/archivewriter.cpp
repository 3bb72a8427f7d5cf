// Test helper: writes to an archive the way other processes do.
//   archivewriter ARCHIVE [START]   writes candidates and evaluations in a loop, one transaction each, and prints
//       "committed N ID SOURCE_SHA256" after each commit, so that the test can check every reported row's content.
//       The crash test kills it with SIGKILL at random points.
//   archivewriter --create ARCHIVE EPOCH_MS   waits until that moment, opens (creating) the archive, prints "opened"
//       or the error and exits 0 or 1: several started at once race to create one file.
//   archivewriter --hold ARCHIVE   opens the archive, starts a write, prints "holding" and waits to be killed.
#include "core/archive/archive.h"
#include "core/util/hash.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

namespace {

int create(const char *path, long long startMs)
{
    const auto start = std::chrono::system_clock::time_point(std::chrono::milliseconds(startMs));
    std::this_thread::sleep_until(start);
    auto archive = kx::Archive::open(path);
    if (!archive) {
        std::printf("%s\n", archive.error().message.c_str());
        return 1;
    }
    std::printf("opened\n");
    return 0;
}

int hold(const char *path)
{
    auto archive = kx::Archive::open(path);
    if (!archive) {
        std::printf("%s\n", archive.error().message.c_str());
        return 1;
    }
    auto tx = (*archive)->begin();
    kx::Op op;
    op.name = "held-op";
    (*archive)->putOp(tx, op);
    std::printf("holding\n");
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::minutes(5));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 4 && std::strcmp(argv[1], "--create") == 0)
        return create(argv[2], std::stoll(argv[3]));
    if (argc == 3 && std::strcmp(argv[1], "--hold") == 0)
        return hold(argv[2]);
    if (argc < 2) {
        std::fprintf(stderr, "usage: archivewriter ARCHIVE [START] | --create ARCHIVE EPOCH_MS | --hold ARCHIVE\n");
        return 2;
    }
    auto archive = kx::Archive::open(argv[1]);
    if (!archive) {
        std::fprintf(stderr, "%s\n", archive.error().message.c_str());
        return 1;
    }
    long n = argc > 2 ? std::stol(argv[2]) : 0;
    {
        auto tx = (*archive)->begin();
        kx::Op op;
        op.name = "crash-op";
        (*archive)->putOp(tx, op);
        tx.commit();
    }
    for (;; ++n) {
        auto tx = (*archive)->begin();
        kx::Candidate candidate;
        candidate.opName = "crash-op";
        candidate.source = "// candidate " + std::to_string(n) + "\n" + std::string(2000, 'x');
        candidate.launchPlan = "{}";
        candidate.id = kx::makeCandidateId(candidate.source, candidate.launchPlan);
        (*archive)->addCandidate(tx, candidate);
        kx::Evaluation evaluation;
        evaluation.candidateId = candidate.id;
        evaluation.gpu.name = "test GPU";
        evaluation.status = kx::EvalStatus::Correct;
        evaluation.samplesMs.assign(200, 0.5 + double(n));
        evaluation.timing = kx::summarize(evaluation.samplesMs);
        (*archive)->addEvaluation(tx, evaluation);
        tx.commit();
        std::printf("committed %ld %s %s\n", n, candidate.id.c_str(), kx::sha256Hex(candidate.source).c_str());
        std::fflush(stdout);
    }
}
