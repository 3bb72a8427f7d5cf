// An archive shared between processes and users: created by several at once, busy, damaged, or read where
// its write-ahead log cannot be used.
#include "core/archive/archive.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <thread>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::unique_ptr<Archive> openOrFail(const std::string &path, ArchiveMode mode = ArchiveMode::ReadWrite)
{
    auto archive = Archive::open(path, mode);
    REQUIRE_MESSAGE(archive, "cannot open archive: " << (archive ? "" : archive.error().message));
    return std::move(*archive);
}

void addCandidates(Archive &archive, int first, int count)
{
    auto tx = archive.begin();
    Op op;
    op.name = "relu";
    archive.putOp(tx, op);
    for (int i = first; i < first + count; ++i) {
        Candidate candidate;
        candidate.opName = "relu";
        candidate.source = "// candidate " + std::to_string(i);
        candidate.launchPlan = "{}";
        candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
        archive.addCandidate(tx, candidate);
    }
    tx.commit();
}

// Runs what in a child process as the unprivileged user "nobody" when this process is root (for whom permissions
// mean nothing), else in this process; returns its text.
std::string asUnprivilegedUser(const std::function<std::string()> &what)
{
    if (::geteuid() != 0)
        return what();
    int pipeFds[2];
    REQUIRE(::pipe(pipeFds) == 0);
    const pid_t pid = ::fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        ::close(pipeFds[0]);
        std::string text = ::setgid(65534) == 0 && ::setuid(65534) == 0 ? what() : "cannot become nobody";
        (void)!::write(pipeFds[1], text.data(), text.size());
        ::_exit(0);
    }
    ::close(pipeFds[1]);
    std::string text;
    char buffer[4096];
    for (ssize_t n; (n = ::read(pipeFds[0], buffer, sizeof buffer)) > 0;)
        text.append(buffer, std::size_t(n));
    ::close(pipeFds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return text;
}

// What a reader sees: "rows N" or "error MESSAGE".
std::string readRows(const std::string &path)
{
    auto archive = Archive::open(path, ArchiveMode::ReadOnly);
    if (!archive)
        return "error " + archive.error().message;
    return "rows " + std::to_string((*archive)->candidates().size());
}

// A folder that others may enter, holding an archive of 3 committed candidates whose last 2 are only in the
// -wal (no checkpoint ran), without its -shm: a copy of a live archive, or one whose -shm was removed.
std::string archiveWithWalOnly(const TemporaryDir &dir, bool emptyWal)
{
    std::filesystem::permissions(dir.path(), std::filesystem::perms::all, std::filesystem::perm_options::replace);
    const std::string folder = dir.filePath("shared");
    std::filesystem::create_directory(folder);
    const std::string path = folder + "/a.kxdb";
    {
        auto archive = openOrFail(path);
        addCandidates(*archive, 0, 1);
        if (!emptyWal) {
            // Keep the next commits in the -wal: no checkpoint, not even when the connection closes.
            REQUIRE(sqlite3_db_config(archive->handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr) == SQLITE_OK);
            REQUIRE(sqlite3_exec(archive->handle(), "PRAGMA wal_autocheckpoint=0", nullptr, nullptr, nullptr)
                    == SQLITE_OK);
            addCandidates(*archive, 1, 2);
        }
    }
    if (emptyWal)
        REQUIRE(test::writeFile(path + "-wal", ""));
    REQUIRE((emptyWal || std::filesystem::file_size(path + "-wal") > 0));
    std::filesystem::remove(path + "-shm");
    using std::filesystem::perms;
    for (const std::string &file : {path, path + "-wal"})
        std::filesystem::permissions(file,
                                     perms::owner_read | perms::owner_write | perms::group_read | perms::others_read,
                                     std::filesystem::perm_options::replace);
    // Read-only for everybody but root (who is not asked).
    std::filesystem::permissions(folder,
                                 perms::owner_read | perms::owner_exec | perms::group_read | perms::group_exec
                                     | perms::others_read | perms::others_exec,
                                 std::filesystem::perm_options::replace);
    return path;
}

} // namespace

TEST_CASE("processes creating one archive at the same moment all succeed")
{
    for (int trial = 0; trial < 5; ++trial) {
        CAPTURE(trial);
        TemporaryDir dir;
        const std::string path = dir.filePath("new.kxdb");
        const auto start = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::system_clock::now().time_since_epoch() + std::chrono::milliseconds(400))
                               .count();
        std::vector<std::unique_ptr<test::ChildProcess>> creators;
        for (int i = 0; i < 6; ++i) {
            creators.push_back(std::make_unique<test::ChildProcess>());
            REQUIRE(creators.back()->start({KX_ARCHIVE_WRITER, "--create", path, std::to_string(start)}));
        }
        for (auto &creator : creators) {
            const auto result = creator->finish(std::chrono::seconds(30));
            CHECK_MESSAGE(result.exitCode == 0, result.out << result.err);
        }
        auto archive = openOrFail(path, ArchiveMode::ReadOnly);
        CHECK(archive->schemaVersion() == Archive::currentSchemaVersion());
        CHECK(archive->integrityCheck() == "ok");
    }
}

TEST_CASE("a busy archive names the process that holds it")
{
    TemporaryDir dir;
    const std::string path = dir.filePath("busy.kxdb");
    openOrFail(path);
    test::ChildProcess holder;
    REQUIRE(holder.start({KX_ARCHIVE_WRITER, "--hold", path}));
    REQUIRE_MESSAGE(holder.waitForOutput("holding", std::chrono::seconds(20)), holder.err());

    // Opening needs no lock when the archive is up to date; writing waits, then says who holds it.
    auto archive = openOrFail(path);
    const auto start = std::chrono::steady_clock::now();
    std::string message;
    try {
        auto tx = archive->begin();
    } catch (const ArchiveError &error) {
        message = error.what();
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CHECK(seconds >= Archive::kBusyTimeoutMs / 1000.0 * 0.9); // it retried meanwhile
    CHECK_MESSAGE(contains(message, "another process is writing to it"), message);
    CHECK_MESSAGE(contains(message, "pid " + std::to_string(holder.pid())), message);
    CHECK_MESSAGE(contains(message, "archivewriter --hold"), message);
    CHECK(contains(message, path));
    holder.sendSignal(SIGKILL);
    (void)holder.finish(std::chrono::seconds(5));

    // Once the holder is gone the write goes through.
    auto tx = archive->begin();
    tx.commit();
}

TEST_CASE("a schema version that is not a number is reported as such")
{
    for (const char *value : {"'abc'", "0", "-3", "1.5"}) {
        SUBCASE(value)
        {
            TemporaryDir dir;
            const std::string path = dir.filePath("damaged.kxdb");
            openOrFail(path);
            {
                sqlite3 *db = nullptr;
                REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
                const std::string sql = std::string("UPDATE schema_version SET version=") + value;
                CHECK(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) == SQLITE_OK);
                sqlite3_close(db);
            }
            const std::string before = test::fileSha256(path);
            for (const auto mode : {ArchiveMode::ReadWrite, ArchiveMode::ReadOnly}) {
                auto archive = Archive::open(path, mode);
                REQUIRE_FALSE(archive);
                const std::string &message = archive.error().message;
                CHECK_MESSAGE(contains(message, "schema version is"), message);
                CHECK_MESSAGE(contains(message, "damaged"), message);
                CHECK_FALSE(contains(message, "already exists"));
            }
            CHECK(test::fileSha256(path) == before);
        }
    }
}

TEST_CASE("a -wal that cannot be read in a read-only folder is an error that names the fix")
{
    // The condition: a WAL archive copied (or left) without its -shm into a folder the reader may not write.
    // SQLite then cannot build the -shm and refuses the file; reading it as immutable would ignore the -wal
    // and show fewer rows than were committed. Permissions mean nothing to root, so as root the reader runs
    // in a child process as "nobody".
    TemporaryDir dir;
    const std::string path = archiveWithWalOnly(dir, false);
    const std::string seen = asUnprivilegedUser([&] { return readRows(path); });
    CHECK_MESSAGE(seen.rfind("error ", 0) == 0, "a partial view: " << seen << " of 3 committed rows");
    CHECK_MESSAGE(contains(seen, path + "-wal"), seen);
    CHECK_MESSAGE(contains(seen, "Fix:"), seen);
    CHECK(test::fileExists(path + "-wal"));

    // Someone who may write the folder sees every row (and the fix works).
    std::filesystem::permissions(path.substr(0, path.rfind('/')), std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
    if (::geteuid() == 0)
        CHECK(readRows(path) == "rows 3");
}

TEST_CASE("an empty -wal without its -shm in a read-only folder still opens")
{
    TemporaryDir dir;
    const std::string path = archiveWithWalOnly(dir, true);
    CHECK(asUnprivilegedUser([&] { return readRows(path); }) == "rows 1");
    std::filesystem::permissions(path.substr(0, path.rfind('/')), std::filesystem::perms::owner_write,
                                 std::filesystem::perm_options::add);
}
