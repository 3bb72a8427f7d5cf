// A writer killed with SIGKILL at random points never damages the archive or loses a committed row.
#include "core/archive/archive.h"

#include "childprocess.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <csignal>
#include <random>
#include <sstream>
#include <thread>

TEST_CASE("survives SIGKILL at random points")
{
    kx::test::TemporaryDir dir;
    const std::string path = dir.filePath("crash.kxdb");
    std::mt19937 random(20261122);
    // Kill at a random moment: sometimes before the first commit, mostly in the middle of the loop.
    std::uniform_int_distribution<int> pauseMs(5, 119);
    long next = 0;
    long totalCommitted = 0;
    const int rounds = 30;
    for (int round = 0; round < rounds; ++round) {
        CAPTURE(round);
        kx::test::ChildProcess writer;
        REQUIRE(writer.start({KX_ARCHIVE_WRITER, path, std::to_string(next)}));
        std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs(random)));
        writer.sendSignal(SIGKILL);
        const auto result = writer.finish(std::chrono::seconds(5));
        REQUIRE_FALSE(result.timedOut);
        CHECK_MESSAGE(result.signal == SIGKILL, "the writer ended by itself: " << result.err);

        long lastCommitted = -1;
        std::istringstream lines(result.out);
        std::string line;
        while (std::getline(lines, line)) {
            std::istringstream words(line);
            std::string word;
            long n = -1;
            if (words >> word && word == "committed" && words >> n)
                lastCommitted = n;
        }

        auto archive = kx::Archive::open(path);
        REQUIRE_MESSAGE(archive, (archive ? "" : archive.error().message));
        CHECK((*archive)->integrityCheck() == std::string("ok"));
        const auto stored = (*archive)->info().candidates;
        CHECK((*archive)->info().evaluations == stored);
        // Every reported commit is there; at most the one in flight beyond it.
        if (lastCommitted >= 0)
            CHECK_MESSAGE(stored >= lastCommitted + 1,
                          "round " << round << ": " << stored << " stored, " << lastCommitted + 1 << " reported");
        CHECK(stored >= totalCommitted);
        totalCommitted = stored;
        next = stored;
    }
    CHECK_MESSAGE(totalCommitted > rounds, "the writer should have committed rows in most rounds");
}
