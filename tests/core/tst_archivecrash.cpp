// A writer killed with SIGKILL at random points never damages the archive or loses a committed row: every row
// the writer reported after its commit is there afterwards, with the content it wrote.
#include "core/archive/archive.h"
#include "core/util/hash.h"

#include "childprocess.h"
#include "temporarydir.h"

#include <doctest/doctest.h>

#include <csignal>
#include <random>
#include <sstream>
#include <thread>

using namespace kx;

namespace {

// One "committed N ID SOURCE_SHA256" line of the writer.
struct CommittedRow
{
    long n = -1;
    std::string id;
    std::string sourceSha256;
};

std::vector<CommittedRow> committedRows(const std::string &output)
{
    std::vector<CommittedRow> rows;
    std::istringstream lines(output);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream words(line);
        std::string word;
        CommittedRow row;
        // A line cut short by the kill is not a report.
        if (words >> word && word == "committed" && words >> row.n >> row.id >> row.sourceSha256)
            rows.push_back(row);
    }
    return rows;
}

// The row is stored with the content the writer gave it: the candidate (source and plan matching its id and
// the reported hash) and its evaluation.
void checkStored(const Archive &archive, const CommittedRow &row)
{
    CAPTURE(row.n);
    const auto candidate = archive.candidate(row.id);
    REQUIRE_MESSAGE(candidate, "candidate " << row.n << " was reported committed but is missing");
    CHECK(sha256Hex(candidate->source) == row.sourceSha256);
    CHECK(makeCandidateId(candidate->source, candidate->launchPlan) == row.id);
    CHECK(candidate->source.rfind("// candidate " + std::to_string(row.n) + "\n", 0) == 0);
    const auto evaluations = archive.evaluations(row.id);
    REQUIRE(evaluations.size() == std::size_t(1));
    CHECK(evaluations.front().samplesMs == std::vector<double>(200, 0.5 + double(row.n)));
}

} // namespace

TEST_CASE("survives SIGKILL at random points")
{
    test::TemporaryDir dir;
    const std::string path = dir.filePath("crash.kxdb");
    std::mt19937 random(20261122);
    // Kill at a random moment: sometimes before the first commit, mostly in the middle of the loop.
    std::uniform_int_distribution<int> pauseMs(5, 119);
    long next = 0;
    long totalCommitted = 0;
    std::vector<CommittedRow> reported;
    const int rounds = 30;
    for (int round = 0; round < rounds; ++round) {
        CAPTURE(round);
        test::ChildProcess writer;
        REQUIRE(writer.start({KX_ARCHIVE_WRITER, path, std::to_string(next)}));
        std::this_thread::sleep_for(std::chrono::milliseconds(pauseMs(random)));
        writer.sendSignal(SIGKILL);
        const auto result = writer.finish(std::chrono::seconds(5));
        REQUIRE_FALSE(result.timedOut);
        CHECK_MESSAGE(result.signal == SIGKILL, "the writer ended by itself: " << result.err);

        const auto rows = committedRows(result.out);
        const long lastCommitted = rows.empty() ? -1 : rows.back().n;

        auto archive = Archive::open(path);
        REQUIRE_MESSAGE(archive, (archive ? "" : archive.error().message));
        CHECK((*archive)->integrityCheck() == std::string("ok"));
        const auto stored = (*archive)->info().candidates;
        CHECK((*archive)->info().evaluations == stored);
        // Every reported commit is there; at most the one in flight beyond it.
        if (lastCommitted >= 0)
            CHECK_MESSAGE(stored >= lastCommitted + 1,
                          "round " << round << ": " << stored << " stored, " << lastCommitted + 1 << " reported");
        CHECK(stored >= totalCommitted);
        for (const auto &row : rows)
            checkStored(**archive, row);
        reported.insert(reported.end(), rows.begin(), rows.end());
        totalCommitted = stored;
        next = stored;
    }
    CHECK_MESSAGE(totalCommitted > rounds, "the writer should have committed rows in most rounds");

    // Rows of earlier rounds survived the later kills too.
    auto archive = Archive::open(path, ArchiveMode::ReadOnly);
    REQUIRE(archive);
    REQUIRE(reported.size() > std::size_t(rounds));
    for (const auto &row : reported)
        checkStored(**archive, row);
}
