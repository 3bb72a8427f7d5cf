// Test helper: writes candidates and evaluations to an archive in a loop, one transaction each, and prints
// "committed N ID SOURCE_SHA256" after each commit, so that the test can check every reported row's content.
// The crash test kills it with SIGKILL at random points.
#include "core/archive/archive.h"
#include "core/util/hash.h"

#include <cstdio>
#include <string>

int main(int argc, char **argv)
{
    if (argc < 2) {
        std::fprintf(stderr, "usage: archivewriter ARCHIVE [START]\n");
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
