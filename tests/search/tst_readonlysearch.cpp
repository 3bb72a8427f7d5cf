// A search session handed a read-only archive refuses to search, to continue a run and to evaluate a hand-made
// candidate, and leaves the file exactly as it was, even when the file itself could be written.
#include "fakesearch.h"

#include "core/archive/archive.h"
#include "core/archive/archiveref.h"
#include "core/search/searchsession.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"
#include "waituntil.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <future>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

/// What "unchanged" means for an archive file: the same bytes, the same modification time, no WAL companions.
struct FileState
{
    std::string bytes;
    std::filesystem::file_time_type modified;
    bool wal = false;
    bool shm = false;

    static FileState of(const std::string &path)
    {
        return {test::readFile(path), std::filesystem::last_write_time(path), test::fileExists(path + "-wal"),
                test::fileExists(path + "-shm")};
    }
};

/// An archive with the fake op, one run of it and one candidate of that run; the connection is closed again.
std::int64_t writeArchive(const std::string &path, const Candidate &candidate)
{
    auto archive = Archive::open(path, ArchiveMode::ReadWrite);
    REQUIRE(archive);
    auto tx = (*archive)->begin();
    (*archive)->putOp(tx, test::fakeOp());
    Run run;
    run.opName = test::fakeOp().name;
    run.settings = toJson(SearchSettings{}); // a run that could be continued
    const std::int64_t runId = (*archive)->createRun(tx, run);
    Candidate member = candidate;
    member.runId = runId;
    (*archive)->addCandidate(tx, member);
    tx.commit();
    return runId;
}

void requireReadOnlyRefusal(const Error &error, const std::string &path)
{
    INFO(error.message);
    CHECK(error.message.find(path) != std::string::npos);
    CHECK(error.message.find("is open read-only") != std::string::npos);
    CHECK(error.message.find("Open it read-write to search") != std::string::npos);
}

} // namespace

TEST_CASE("A read-only archive handle refuses every search write and leaves the file untouched")
{
    TemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string path = dir.filePath("browse.kxdb");
    Candidate candidate = test::makeFakeCandidate(3);
    candidate.opName = test::fakeOp().name;
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    const std::int64_t runId = writeArchive(path, candidate);
    candidate.runId = runId;
    const FileState before = FileState::of(path);
    REQUIRE_FALSE(before.bytes.empty());
    REQUIRE_FALSE(before.wal);
    REQUIRE_FALSE(before.shm);

    SearchSessionOptions options;
    options.archive = ArchiveRef::readOnly(path);
    options.workerCommand = {"/bin/false"}; // never started: the refusals come first
    // A proposer that can make kernels for the fake op, so that nothing but the handle stops the search.
    options.makeProposer = [] { return std::make_unique<test::FakeProposer>(); };
    SearchSession session(std::move(options), SearchEventSink{});

    SUBCASE("start")
    {
        const Expected<std::int64_t> started = session.start(test::fakeOp());
        CHECK_FALSE(started);
        if (!started)
            requireReadOnlyRefusal(started.error(), path);
        CHECK(session.state() == RunState::Created);
    }
    SUBCASE("continue")
    {
        const Expected<std::int64_t> continued = session.continueRun(runId);
        CHECK_FALSE(continued);
        if (!continued)
            requireReadOnlyRefusal(continued.error(), path);
        CHECK(session.state() == RunState::Created);
    }
    SUBCASE("manual evaluation")
    {
        auto answer = std::make_shared<std::promise<Expected<Evaluation>>>();
        std::future<Expected<Evaluation>> evaluated = answer->get_future();
        session.evaluateManual(test::fakeOp(), candidate,
                               [answer](Expected<Evaluation> result) { answer->set_value(std::move(result)); });
        // Refused at once, not queued for workers that would store the evaluation.
        CHECK(evaluated.wait_for(std::chrono::seconds(5)) == std::future_status::ready);
        if (evaluated.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
            const Expected<Evaluation> result = evaluated.get();
            CHECK_FALSE(result);
            if (!result)
                requireReadOnlyRefusal(result.error(), path);
        }
    }

    // Checked while the session still holds whatever it opened: a writer would have left a -wal beside the file.
    const FileState after = FileState::of(path);
    CHECK(after.bytes == before.bytes);
    CHECK(after.modified == before.modified);
    CHECK_FALSE(after.wal);
    CHECK_FALSE(after.shm);
}

TEST_CASE("An archive handle says how it opens the file")
{
    TemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string path = dir.filePath("modes.kxdb");
    const ArchiveRef writable = ArchiveRef::readWrite(path);
    CHECK_FALSE(writable.isReadOnly());
    auto created = writable.open();
    REQUIRE(created);
    CHECK_FALSE((*created)->isReadOnly());
    created->reset();

    const ArchiveRef browsing = ArchiveRef::readOnly(path);
    CHECK(browsing.isReadOnly());
    auto opened = browsing.open();
    REQUIRE(opened);
    CHECK((*opened)->isReadOnly());
    // Background readers take their own read-only connection whatever the handle's mode.
    auto reader = writable.openForReading();
    REQUIRE(reader);
    CHECK((*reader)->isReadOnly());

    CHECK(ArchiveRef{}.empty());
    CHECK(ArchiveRef{}.isReadOnly()); // a handle nobody said may write cannot
    CHECK(writable != browsing);
    CHECK(writable == ArchiveRef::readWrite(path));
}
