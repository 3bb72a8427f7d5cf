// Opening archives: the schema a new file gets, older schemas migrated (in memory for readers, so browsing never
// changes a file), newer schemas and other files refused untouched, and read-only files and modes that never write.
#include "archivetestsupport.h"

#include "core/archive/archive.h"
#include "core/archive/schema.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>

using namespace kx;
using namespace kx::test;

namespace {

// The schema version stored in the file, read without locks or companion files.
int versionOnDisk(const std::string &path)
{
    sqlite3 *db = nullptr;
    const std::string uri = "file:" + path + "?immutable=1";
    REQUIRE(sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) == SQLITE_OK);
    const int version = schema::storedVersion(db);
    sqlite3_close(db);
    return version;
}

// An archive as version 1 wrote it, with a verdict (version 2 added retraction), in the given journal mode.
void writeVersion1Archive(const std::string &path, bool wal)
{
    sqlite3 *db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    schema::migrate(db, 1);
    REQUIRE(schema::storedVersion(db) == 1);
    char *error = nullptr;
    const int rc = sqlite3_exec(db, R"sql(
        INSERT INTO ops(name, source_kind, definition, created_at, updated_at)
            VALUES('relu', 'builtin', '{"name":"relu"}', 1, 1);
        INSERT INTO candidates(id, op_name, source, launch_plan, origin, operator, description, created_at)
            VALUES('abcd1234', 'relu', 'src', '{}', 'manual', 'edit', '', 1);
        INSERT INTO verdicts(candidate_id, accepted, reason, note, created_at)
            VALUES('abcd1234', 1, 'verified-speedup', 'v1 note', 2);)sql",
                                nullptr, nullptr, &error);
    CHECK_MESSAGE(rc == SQLITE_OK, (error ? error : ""));
    sqlite3_free(error);
    if (wal)
        REQUIRE(sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    REQUIRE_FALSE(hasCompanionFiles(path)); // the last connection checkpointed and removed them
}

// An archive of the current schema in WAL mode with one op and one candidate, closed cleanly.
void writeSmallArchive(const std::string &path)
{
    auto archive = openOrFail(path);
    auto tx = archive->begin();
    archive->putOp(tx, makeOp("relu"));
    archive->addCandidate(tx, makeCandidate("relu", "a"));
    tx.commit();
}

} // namespace

TEST_CASE("creates the current schema in WAL mode")
{
    TemporaryDir dir;
    auto archive = openOrFail(dir.filePath("a.kxdb"));
    CHECK(archive->schemaVersion() == Archive::currentSchemaVersion());
    CHECK(archive->integrityCheck() == std::string("ok"));
    sqlite3_stmt *statement = nullptr;
    sqlite3_prepare_v2(archive->handle(), "PRAGMA journal_mode", -1, &statement, nullptr);
    CHECK(sqlite3_step(statement) == SQLITE_ROW);
    CHECK(std::string(reinterpret_cast<const char *>(sqlite3_column_text(statement, 0))) == std::string("wal"));
    sqlite3_finalize(statement);
    const ArchiveInfo info = archive->info();
    CHECK(info.candidates == 0);
    CHECK(info.createdBy.find("Kernel Explorer") != std::string::npos);
    CHECK_FALSE(archive->isUpgradedCopy());
}

TEST_CASE("an older archive opened read-only is migrated in memory and the file stays untouched")
{
    for (const bool wal : {false, true}) {
        SUBCASE(wal ? "WAL" : "rollback journal")
        {
            TemporaryDir dir;
            const std::string path = dir.filePath("v1.kxdb");
            writeVersion1Archive(path, wal);
            const std::string before = fileSha256(path);
            REQUIRE_FALSE(before.empty());
            {
                auto archive = openOrFail(path, ArchiveMode::ReadOnly);
                CHECK(archive->schemaVersion() == Archive::currentSchemaVersion()); // the migrated copy
                CHECK(archive->isReadOnly());
                CHECK(archive->isUpgradedCopy());
                CHECK(archive->candidate("abcd1234")->genome == std::string()); // column added by step 3
                const auto verdict = archive->currentVerdict("abcd1234");
                CHECK(verdict.has_value());
                CHECK(verdict->note == std::string("v1 note"));
                CHECK(!verdict->retracted);
                CHECK(archive->integrityCheck() == std::string("ok"));
                // The queries of the current schema work on the copy.
                const auto summaries = archive->candidateSummaries();
                REQUIRE(summaries.size() == std::size_t(1));
                CHECK(summaries.front().accepted == std::optional<bool>(true));
                CHECK(archive->info().candidates == 1);
                CHECK_FALSE(archive->provenance("abcd1234")); // table added by step 4
                CHECK(archive->runGenerations(1).empty());    // column added by step 3
                CHECK_THROWS_AS(archive->begin(), ArchiveError);
                CHECK(fileSha256(path) == before);
            }
            CHECK(fileSha256(path) == before);
            CHECK(versionOnDisk(path) == 1);
            CHECK_FALSE(hasCompanionFiles(path));

            // A writer still upgrades the file itself.
            {
                auto writer = openOrFail(path);
                CHECK_FALSE(writer->isUpgradedCopy());
                CHECK(writer->schemaVersion() == Archive::currentSchemaVersion());
                CHECK(writer->currentVerdict("abcd1234")->note == std::string("v1 note"));
            }
            CHECK(versionOnDisk(path) == Archive::currentSchemaVersion());
            CHECK(fileSha256(path) != before);
            auto reader = openOrFail(path, ArchiveMode::ReadOnly);
            CHECK_FALSE(reader->isUpgradedCopy());
        }
    }
}

TEST_CASE("refuses a newer schema and leaves it untouched")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("future.kxdb");
    {
        auto archive = openOrFail(path);
    }
    {
        sqlite3 *db = nullptr;
        sqlite3_open(path.c_str(), &db);
        CHECK(sqlite3_exec(db, "PRAGMA journal_mode=DELETE; UPDATE schema_version SET version=99", nullptr, nullptr,
                           nullptr)
              == SQLITE_OK);
        sqlite3_close(db);
    }
    const std::string before = fileSha256(path);
    for (const auto mode : {ArchiveMode::ReadWrite, ArchiveMode::ReadOnly}) {
        auto archive = Archive::open(path, mode);
        CHECK(!archive);
        CHECK_MESSAGE(archive.error().message.find("newer") != std::string::npos, archive.error().message);
    }
    CHECK(fileSha256(path) == before);
    CHECK(!fileExists(path + "-wal"));
}

TEST_CASE("refuses files that are not archives")
{
    const struct
    {
        const char *name;
        std::string content;
        bool otherDatabase;
        std::string expected;
    } rows[] = {
        {"text", "just some text\n", false, "not an SQLite database"},
        {"binary", std::string(8192, '\x7f'), false, "not an SQLite database"},
        {"other sqlite", "", true, "another program"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            TemporaryDir dir;
            const std::string path = dir.filePath("x.kxdb");
            if (row.otherDatabase) {
                sqlite3 *db = nullptr;
                sqlite3_open(path.c_str(), &db);
                sqlite3_exec(db, "CREATE TABLE notes(text TEXT); INSERT INTO notes VALUES('mine')", nullptr, nullptr,
                             nullptr);
                sqlite3_close(db);
            } else {
                CHECK(test::writeFile(path, row.content));
            }
            const std::string before = fileSha256(path);
            auto archive = Archive::open(path);
            CHECK(!archive);
            CHECK_MESSAGE(archive.error().message.find(row.expected) != std::string::npos, archive.error().message);
            CHECK(fileSha256(path) == before);
        }
    }
}

TEST_CASE("a read-only file opens only for reading and leaves no companion files")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("ro.kxdb");
    writeSmallArchive(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    std::filesystem::permissions(path, std::filesystem::perms::owner_read | std::filesystem::perms::group_read,
                                 std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    auto writable = Archive::open(path);
    CHECK(!writable);
    CHECK(writable.error().message.find("read-only") != std::string::npos);
    auto archive = openOrFail(path, ArchiveMode::ReadOnly);
    CHECK(archive->candidates().size() == std::size_t(1));
    CHECK_THROWS_AS(archive->begin(), ArchiveError);
    CHECK_FALSE(hasCompanionFiles(path)); // not even while it is open
    archive.reset();
    CHECK(fileSha256(path) == before);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("a read-only copy of an archive without write permission leaves no companion files")
{
    TemporaryDir dir;
    const std::string original = dir.filePath("original.kxdb");
    writeSmallArchive(original);
    const std::string path = dir.filePath("copy.kxdb");
    std::filesystem::copy_file(original, path);
    std::filesystem::permissions(path,
                                 std::filesystem::perms::owner_read | std::filesystem::perms::group_read
                                     | std::filesystem::perms::others_read,
                                 std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    if (::access(path.c_str(), W_OK) != 0) {
        // Permissions mean something here (not root): the file cannot be written by anybody opening it.
        CHECK_FALSE(Archive::open(path));
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->candidates().size() == std::size_t(1));
        CHECK_FALSE(hasCompanionFiles(path));
    } else {
        // Running as root: the mode bits do not stop writes, so check the ReadOnly mode on a writable copy.
        MESSAGE("the file stays writable (root): checking ReadOnly mode on a writable copy instead");
        std::filesystem::permissions(path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->candidates().size() == std::size_t(1));
    }
    CHECK(fileSha256(path) == before);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("ReadOnly mode on a writable archive leaves no companion files and never writes")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    writeSmallArchive(path);
    REQUIRE_FALSE(hasCompanionFiles(path));
    const std::string before = fileSha256(path);
    {
        auto first = openOrFail(path, ArchiveMode::ReadOnly);
        auto second = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(first->candidates().size() == std::size_t(1));
        CHECK(second->candidates().size() == std::size_t(1));
        CHECK_FALSE(first->isUpgradedCopy());
        // Nothing can be written through the raw connection either.
        CHECK(sqlite3_exec(first->handle(), "DELETE FROM candidates", nullptr, nullptr, nullptr) != SQLITE_OK);
    }
    CHECK_FALSE(hasCompanionFiles(path));
    CHECK(fileSha256(path) == before);
}

TEST_CASE("an older archive without write permission can still be browsed")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("v1.kxdb");
    writeVersion1Archive(path, true);
    std::filesystem::permissions(path, std::filesystem::perms::owner_read, std::filesystem::perm_options::replace);
    const std::string before = fileSha256(path);
    {
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->isUpgradedCopy());
        CHECK(archive->candidates().size() == std::size_t(1));
        CHECK_FALSE(hasCompanionFiles(path));
    }
    CHECK(fileSha256(path) == before);
    CHECK(versionOnDisk(path) == 1);
    CHECK_FALSE(hasCompanionFiles(path));
}

TEST_CASE("ReadOnly mode refuses writes")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("a.kxdb");
    openOrFail(path);
    auto reader = openOrFail(path, ArchiveMode::ReadOnly);
    CHECK(reader->isReadOnly());
    CHECK_THROWS_AS(reader->begin(), ArchiveError);
}
