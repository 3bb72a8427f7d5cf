// Test helper: runs (or continues) a search with the fake proposer and evaluator, printing one line per
// evaluation. The resume test kills it with SIGKILL and continues the run in another process; with
// KX_RUNNER_HOLD_AFTER=N in the environment the search holds after its Nth evaluation until it is killed, so
// that the kill always lands in a running search (a fast machine could otherwise finish first).
#include "fakesearch.h"

#include "core/search/searchengine.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

int main(int argc, char **argv)
{
    if (argc < 4) {
        std::fprintf(stderr, "usage: searchrunner ARCHIVE SEED GENERATIONS [RUN-ID-TO-CONTINUE]\n"
                             "       (GENERATIONS is ignored when continuing: the run keeps its budget)\n");
        return 2;
    }
    kx::SearchSettings settings;
    settings.seed = std::stoull(argv[2]);
    settings.childrenPerGeneration = 4;
    settings.budget.generations = std::stoi(argv[3]); // stored with the run: a continued run keeps it
    std::vector<std::unique_ptr<kx::StopCondition>> stops;
    const char *hold = std::getenv("KX_RUNNER_HOLD_AFTER");
    const int holdAfter = hold ? std::atoi(hold) : 0;
    kx::SearchEngine engine(argv[1], std::make_unique<kx::test::FakeProposer>(),
                            std::make_shared<kx::test::FakeEvaluator>(), settings, std::move(stops),
                            [holdAfter](const kx::SearchEvent &event) {
                                if (event.kind == kx::SearchEvent::Kind::Evaluated) {
                                    std::printf("evaluated %d\n", event.progress.evaluated);
                                    std::fflush(stdout);
                                    if (holdAfter > 0 && event.progress.evaluated >= holdAfter)
                                        for (;;)
                                            std::this_thread::sleep_for(std::chrono::seconds(1));
                                }
                            });
    const auto run = argc > 4 ? engine.continueRun(std::stoll(argv[4])) : engine.start(kx::test::fakeOp());
    if (!run) {
        std::fprintf(stderr, "%s\n", run.error().message.c_str());
        return 1;
    }
    engine.wait();
    std::printf("finished %s\n", kx::toString(engine.state()));
    return engine.state() == kx::RunState::Finished ? 0 : 1;
}
