// A problem file is Python code that runs when it is imported: the import runs it in a bubblewrap sandbox with a
// memory cap and a time limit, nothing it starts outlives it, and without bubblewrap the import is refused unless
// the user asks for an unconfined run. Needs Python 3 with PyTorch; exits 77 (skipped) without it.
#include "core/kernelbench/bundlereader.h"
#include "core/kernelbench/problemimporter.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <thread>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

using Clock = std::chrono::steady_clock;

const std::string kData = std::string(KX_TEST_DATA_DIR) + "/kernelbench/";

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

void skipWithoutTorch()
{
    static const bool checked = [] {
        if (const auto python = ProblemImporter().findPython(); !python) {
            std::cout << "skipped: " << python.error().message << '\n';
            std::exit(77);
        }
        return true;
    }();
    (void)checked;
}

// Skips a case that needs a working sandbox where bubblewrap is missing.
bool haveSandbox()
{
    if (ProblemImporter::sandboxAvailable())
        return true;
    MESSAGE("bubblewrap is not installed here: the sandbox itself is not tested");
    return false;
}

// Sets environment variables for the life of the object.
using Variables = std::vector<std::pair<std::string, std::string>>;

class ScopedEnvironment
{
public:
    explicit ScopedEnvironment(const Variables &variables)
    {
        for (const auto &[name, value] : variables) {
            const char *old = std::getenv(name.c_str());
            m_old.emplace_back(name, old ? std::optional<std::string>(old) : std::nullopt);
            ::setenv(name.c_str(), value.c_str(), 1);
        }
    }
    ~ScopedEnvironment()
    {
        for (const auto &[name, value] : m_old)
            value ? ::setenv(name.c_str(), value->c_str(), 1) : ::unsetenv(name.c_str());
    }

private:
    std::vector<std::pair<std::string, std::optional<std::string>>> m_old;
};

// A TCP listener on 127.0.0.1 that counts the connections that reached it.
class Listener
{
public:
    Listener()
    {
        m_fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_in address{};
        address.sin_family = AF_INET;
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t length = sizeof address;
        REQUIRE(::bind(m_fd, reinterpret_cast<sockaddr *>(&address), sizeof address) == 0);
        REQUIRE(::listen(m_fd, 8) == 0);
        REQUIRE(::getsockname(m_fd, reinterpret_cast<sockaddr *>(&address), &length) == 0);
        m_port = ntohs(address.sin_port);
    }
    ~Listener() { ::close(m_fd); }
    int port() const { return m_port; }
    int accepted()
    {
        int count = 0;
        for (int client; (client = ::accept(m_fd, nullptr, nullptr)) >= 0; ++count)
            ::close(client);
        return count;
    }

private:
    int m_fd = -1;
    int m_port = 0;
};

// Whether a process with exactly this command line runs (seen from here).
bool processRuns(const std::vector<std::string> &argv)
{
    std::string wanted;
    for (const auto &arg : argv)
        wanted += arg + '\0';
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator("/proc", error))
        if (test::readFile(entry.path().string() + "/cmdline") == wanted)
            return true;
    return false;
}

kx::test::ProgramResult runKx(const std::vector<std::string> &arguments)
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return kx::test::runProgram(argv, {}, std::chrono::seconds(120));
}

} // namespace

TEST_CASE("without bubblewrap the import is refused unless an unconfined run is asked for")
{
    skipWithoutTorch();
    const ScopedEnvironment noBubblewrap(Variables{{"KX_BWRAP", ""}});
    CHECK_FALSE(ProblemImporter::sandboxAvailable());
    const auto refused = ProblemImporter().importFile(kData + "relu.py");
    REQUIRE_FALSE(refused);
    CHECK_MESSAGE(contains(refused.error().message, "bubblewrap"), refused.error().message);
    CHECK(contains(refused.error().message, "--no-sandbox"));
    CHECK(contains(refused.error().message, "Python code"));

    ImportOptions unconfined;
    unconfined.sandbox = false;
    const auto imported = ProblemImporter(unconfined).importFile(kData + "relu.py");
    CHECK_MESSAGE(imported, (imported ? "" : imported.error().message));

    TemporaryDir dir;
    const auto archive = dir.filePath("a.kxdb");
    const auto refusedCli = runKx({"import", kData + "relu.py", "-a", archive});
    CHECK(refusedCli.exitCode == 5); // a tool it needs (bubblewrap) is not available
    CHECK_MESSAGE(contains(refusedCli.err, "--no-sandbox"), refusedCli.err);
    CHECK_FALSE(test::fileExists(archive));
    const auto unconfinedCli = runKx({"import", kData + "relu.py", "-a", archive, "--no-sandbox"});
    CHECK_MESSAGE(unconfinedCli.exitCode == 0, unconfinedCli.err);

    // kx coverage and kx search (given a problem file) take the flag too.
    const std::string folder = dir.filePath("problems");
    std::filesystem::create_directory(folder);
    std::filesystem::copy_file(kData + "relu.py", folder + "/relu.py");
    const auto coverage = runKx({"coverage", folder, "-a", archive});
    CHECK(contains(coverage.err, "--no-sandbox"));
    const auto coverageUnconfined = runKx({"coverage", folder, "-a", archive, "--no-sandbox"});
    CHECK_MESSAGE(coverageUnconfined.exitCode == 0, coverageUnconfined.err);
    CHECK(contains(coverageUnconfined.out, "relu.py"));
    const auto search = runKx({"search", folder + "/relu.py", "-a", archive, "--worker", "/bin/false"});
    CHECK(search.exitCode == 5);
    CHECK(contains(search.err, "--no-sandbox"));
}

TEST_CASE("a problem file cannot reach files, the network or processes outside its sandbox")
{
    skipWithoutTorch();
    if (!haveSandbox())
        return;
    TemporaryDir dir;
    // The problem file is imported from a folder of its own, beside a file it must not read.
    const std::string problem = dir.filePath("confined.py");
    std::filesystem::copy_file(kData + "sandbox/confined.py", problem);
    const std::string privateFile = dir.filePath("private.txt");
    REQUIRE(test::writeFile(privateFile, "not for the problem file\n"));
    const std::string marker = dir.filePath("marker.txt");
    Listener listener;
    const char *home = std::getenv("HOME");
    const ScopedEnvironment targets(Variables{{"KX_TEST_PRIVATE_FILE", privateFile},
                                              {"KX_TEST_MARKER_FILE", marker},
                                              {"KX_TEST_REAL_HOME", std::string(home && *home ? home : "/root")},
                                              {"KX_TEST_PORT", std::to_string(listener.port())},
                                              {"KX_TEST_PID", std::to_string(::getpid())}});
    const auto imported = ProblemImporter().importFile(problem);
    CHECK_MESSAGE(imported, (imported ? "" : imported.error().message));
    CHECK_FALSE(test::fileExists(marker));
    CHECK_FALSE(test::fileExists(dir.filePath("escaped.txt")));
    CHECK(listener.accepted() == 0);
}

TEST_CASE("nothing the problem file starts outlives the import or keeps it waiting")
{
    skipWithoutTorch();
    for (const bool sandbox : {true, false}) {
        SUBCASE(sandbox ? "sandboxed" : "unconfined (its process group)")
        {
            if (sandbox && !haveSandbox())
                return;
            // A number only this run uses, to find the process it leaves behind.
            const std::string seconds = "900." + std::to_string(::getpid()) + (sandbox ? "1" : "2");
            const ScopedEnvironment sleep(Variables{{"KX_TEST_SLEEP", seconds}});
            ImportOptions options;
            options.sandbox = sandbox;
            options.timeout = std::chrono::seconds(20);
            const auto start = Clock::now();
            const auto imported = ProblemImporter(options).importFile(kData + "sandbox/lingering.py");
            const double took = std::chrono::duration<double>(Clock::now() - start).count();
            CHECK_MESSAGE(imported, (imported ? "" : imported.error().message));
            CHECK_MESSAGE(took < 15, "the import waited " << took << " s for the process left behind");
            bool survived = true;
            for (int i = 0; i < 50 && survived; ++i) {
                survived = processRuns({"sleep", seconds});
                if (survived)
                    std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
            CHECK_MESSAGE(!survived, "sleep " << seconds << " survived the import");
        }
    }
}

TEST_CASE("the import has a memory cap and a time limit, both settings")
{
    skipWithoutTorch();
    // The caps hold with and without the sandbox; without bubblewrap they are tested unconfined. 4 GiB leaves
    // room for a CUDA build of PyTorch to import.
    const bool sandbox = ProblemImporter::sandboxAvailable();
    ImportOptions capped;
    capped.sandbox = sandbox;
    capped.memoryBytes = std::int64_t(4) << 30;
    const auto hungry = ProblemImporter(capped).importFile(kData + "sandbox/hungry.py");
    REQUIRE_FALSE_MESSAGE(hungry, "a problem file took 6 GiB under a cap of 4 GiB");
    CHECK_MESSAGE(contains(hungry.error().message, "MemoryError"), hungry.error().message);
    CHECK(contains(hungry.error().message, "--max-memory-mb"));

    ImportOptions quick;
    quick.sandbox = sandbox;
    quick.timeout = std::chrono::seconds(2);
    const auto start = Clock::now();
    const auto sleeper = ProblemImporter(quick).importFile(kData + "sandbox/sleeper.py");
    REQUIRE_FALSE(sleeper);
    CHECK(std::chrono::duration<double>(Clock::now() - start).count() < 15);
    CHECK_MESSAGE(contains(sleeper.error().message, "did not finish within 2 s"), sleeper.error().message);

    TemporaryDir dir;
    const std::vector<std::string> confinement =
        sandbox ? std::vector<std::string>{} : std::vector<std::string>{"--no-sandbox"};
    std::vector<std::string> sleeperArgs{
        "import", kData + "sandbox/sleeper.py", "-a", dir.filePath("a.kxdb"), "--timeout", "2"};
    sleeperArgs.insert(sleeperArgs.end(), confinement.begin(), confinement.end());
    const auto cli = runKx(sleeperArgs);
    CHECK(cli.exitCode == 3);
    CHECK_MESSAGE(contains(cli.err, "--timeout"), cli.err);
    std::vector<std::string> hungryArgs{
        "import", kData + "sandbox/hungry.py", "-a", dir.filePath("a.kxdb"), "--max-memory-mb", "4096"};
    hungryArgs.insert(hungryArgs.end(), confinement.begin(), confinement.end());
    const auto memory = runKx(hungryArgs);
    CHECK(memory.exitCode == 3);
    CHECK_MESSAGE(contains(memory.err, "MemoryError"), memory.err);
}

TEST_CASE("a sandbox that cannot start says so")
{
    skipWithoutTorch();
    TemporaryDir dir;
    // A stand-in for bwrap where namespaces are not allowed.
    const std::string bwrap = dir.filePath("bwrap");
    REQUIRE(test::writeFile(bwrap, "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n"));
    std::filesystem::permissions(bwrap, std::filesystem::perms::owner_all);
    const ScopedEnvironment fake(Variables{{"KX_BWRAP", bwrap}});
    const auto result = ProblemImporter().importFile(kData + "relu.py");
    REQUIRE_FALSE(result);
    CHECK_MESSAGE(contains(result.error().message, "the sandbox for the import could not start"),
                  result.error().message);
    CHECK(contains(result.error().message, "No permissions to create new namespace"));
    CHECK(contains(result.error().message, "--no-sandbox"));
}

TEST_CASE("a bundle the problem file's code tampered with is an error, not a crash")
{
    // The bundle folder is the one place the sandboxed code may write: what the import reads back from it is
    // untrusted too.
    const struct
    {
        const char *name;
        std::string problemJson;
        std::string expected;
    } rows[] = {
        {"format as text", R"({"format": "1"})", "unknown format"},
        {"nested too deeply", R"({"format": 1, "graph": )" + std::string(100000, '[') + std::string(100000, ']') + "}",
         "nest deeper than"},
        {"a hash as a number", R"({"format": 1, "sha256": 5})", "problem.json is malformed"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            TemporaryDir dir;
            const std::string problem = dir.filePath("relu.py");
            std::filesystem::copy_file(kData + "relu.py", problem);
            const std::string bundle = dir.filePath("bundle");
            std::filesystem::create_directory(bundle);
            REQUIRE(test::writeFile(bundle + "/problem.json", row.problemJson));
            REQUIRE(test::writeFile(bundle + "/reference.pt", "not really a module"));
            Expected<ImportedProblem> result = Error{};
            CHECK_NOTHROW(result = BundleReader::read(bundle, problem));
            REQUIRE_FALSE(result);
            CHECK_MESSAGE(contains(result.error().message, row.expected), result.error().message);
        }
    }
}
