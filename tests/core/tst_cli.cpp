// Runs the real kx executable, as scripts do, and checks output and exit codes.
#include "app/kx/exitcodes.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <csignal>
#include <thread>

namespace {

using kx::test::TemporaryDir;

struct Result
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

Result runKx(const std::vector<std::string> &arguments, const std::string &archiveEnv = {},
             kx::test::ChildProcess::Environment environment = {})
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    if (!archiveEnv.empty())
        environment.emplace_back("KX_ARCHIVE", archiveEnv);
    const auto result = kx::test::runProgram(argv, environment, std::chrono::seconds(60));
    if (result.timedOut)
        return {};
    return {result.exitCode, result.out, result.err};
}

// The JSON kx printed; null when it is not JSON.
nlohmann::json parseJson(const std::string &text)
{
    return nlohmann::json::parse(text, nullptr, false);
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}
bool startsWith(const std::string &text, const std::string &prefix)
{
    return text.rfind(prefix, 0) == 0;
}

const std::string kSample = KX_TEST_DATA_DIR "/sample-archive.json";

} // namespace

TEST_CASE("prints version and help")
{
    const auto version = runKx({"--version"});
    CHECK(version.exitCode == 0);
    CHECK(startsWith(version.out, "kx "));
    const auto help = runKx({"--help"});
    CHECK(help.exitCode == 0);
    CHECK(contains(help.out, "archive"));
}

TEST_CASE("help lists the exit codes the code returns")
{
    // The numbers scripts rely on; the help text is made from the same constants.
    CHECK(kx::cli::Ok == 0);
    CHECK(kx::cli::Failure == 1);
    CHECK(kx::cli::Usage == 2);
    CHECK(kx::cli::BadInput == 3);
    CHECK(kx::cli::NoGpu == 4);
    CHECK(kx::cli::Unavailable == 5);
    CHECK(kx::cli::Interrupted == 130);
    const auto help = runKx({"--help"});
    REQUIRE(help.exitCode == 0);
    CHECK(help.out.find("Exit codes:") > help.out.find("Subcommands:")); // in the footer, after the commands
    CHECK(contains(help.out, "\n  0    success\n"));
    CHECK(contains(help.out, "\n  1    failure (the reason is on stderr)\n"));
    CHECK(contains(help.out, "\n  2    usage error\n"));
    CHECK(contains(help.out, "\n  3    unreadable or invalid input (a file or an archive)\n"));
    CHECK(contains(help.out, "\n  4    no GPU or no CUDA\n"));
    CHECK(contains(help.out, "\n  5    a tool it needs is not available (e.g. Nsight Compute)\n"));
    CHECK(contains(help.out, "\n  130  interrupted (Ctrl-C)\n"));
    CHECK(kx::cli::exitCodesHelp().find("Exit codes:") == 0);
    CHECK(contains(help.out, kx::cli::exitCodesHelp()));
}

TEST_CASE("a failure's exit code comes from its kind, one code for each kind")
{
    using kx::Error;
    using kx::cli::exitCodeFor;
    CHECK(exitCodeFor(Error{"failed"}) == kx::cli::Failure);
    CHECK(exitCodeFor(Error::badInput("unreadable")) == kx::cli::BadInput);
    CHECK(exitCodeFor(Error::noGpu("no device")) == kx::cli::NoGpu);
    CHECK(exitCodeFor(Error::unavailable("no ncu")) == kx::cli::Unavailable);
    CHECK(exitCodeFor(Error::cancelled("Ctrl-C")) == kx::cli::Interrupted);
    // The message plays no part: a failure that mentions a GPU is still a plain failure.
    CHECK(exitCodeFor(Error{"no GPU: device 3 requested"}) == kx::cli::Failure);
}

TEST_CASE("usage errors exit 2")
{
    const struct
    {
        const char *name;
        std::vector<std::string> arguments;
    } rows[] = {
        {"nothing", {}},
        {"unknown command", {"frobnicate"}},
        {"archive without verb", {"archive"}},
        {"show without id", {"archive", "show"}},
        {"bad limit", {"archive", "list", "--limit", "-3"}},
        {"ssh with local GPUs", {"search", "softmax", "--ssh", "gpu-a:0", "--gpus", "0"}},
        {"ssh and slurm", {"search", "softmax", "--ssh", "gpu-a", "--slurm", "2"}},
        {"bad ssh host", {"search", "softmax", "--ssh", "gpu-a:x"}},
        {"no slurm workers", {"search", "softmax", "--slurm", "0"}},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const auto result = runKx(row.arguments);
            CHECK(result.exitCode == 2);
            CHECK(!result.err.empty());
        }
    }
}

TEST_CASE("import, list, show and export")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("a.kxdb");
    const auto imported = runKx({"archive", "import", "-a", archive, kSample});
    CHECK(imported.exitCode == 0);
    CHECK(contains(imported.out, "5 candidate(s)"));

    const auto info = runKx({"archive", "info", "-a", archive, "--json"});
    CHECK(info.exitCode == 0);
    const auto infoJson = parseJson(info.out);
    CHECK(infoJson.value("candidates", -1) == 5);
    CHECK(infoJson.value("evaluations", -1) == 8);

    const auto list = runKx({"archive", "list", "-a", archive, "--json", "--flagged"});
    CHECK(list.exitCode == 0);
    const auto rows = parseJson(list.out);
    REQUIRE(rows.is_array());
    REQUIRE(rows.size() == std::size_t(1));
    const std::string id = rows.front().value("id", std::string());

    const auto show = runKx({"archive", "show", "-a", archive, id.substr(0, 8)});
    CHECK(show.exitCode == 0);
    CHECK(contains(show.out, "flag impossible"));
    CHECK(contains(show.out, "__global__"));

    const std::string first = dir.filePath("first.json");
    CHECK(runKx({"archive", "export", "-a", archive, "-o", first}).exitCode == 0);
    const std::string copy = dir.filePath("copy.kxdb");
    CHECK(runKx({"archive", "import", "-a", copy, first}).exitCode == 0);
    const auto second = runKx({"archive", "export", "-a", copy});
    CHECK(second.exitCode == 0);
    REQUIRE(kx::test::fileExists(first));
    CHECK(second.out == kx::test::readFile(first));
}

TEST_CASE("the default archive comes from the environment")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("env.kxdb");
    CHECK(runKx({"archive", "import", kSample}, archive).exitCode == 0);
    CHECK(kx::test::fileExists(archive));
    CHECK(runKx({"archive", "info"}, archive).exitCode == 0);
}

TEST_CASE("bad input exits 3 and changes nothing")
{
    const struct
    {
        const char *name;
        std::string content;
    } rows[] = {
        {"not json", "{ this is not json"},
        {"not an export", R"({"hello": 1})"},
        {"truncated export", R"({"format": "kernel-explorer-archive", "version": 1})"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            TemporaryDir dir;
            const std::string archive = dir.filePath("a.kxdb");
            CHECK(runKx({"archive", "import", "-a", archive, kSample}).exitCode == 0);
            const std::string bad = dir.filePath("bad.json");
            CHECK(kx::test::writeFile(bad, row.content));
            const auto result = runKx({"archive", "import", "-a", archive, bad});
            CHECK(result.exitCode == 3);
            CHECK(startsWith(result.err, "kx: "));
            const auto info = runKx({"archive", "info", "-a", archive, "--json"});
            CHECK(parseJson(info.out).value("candidates", -1) == 5);
        }
    }
}

TEST_CASE("missing or foreign archives exit 3")
{
    TemporaryDir dir;
    CHECK(runKx({"archive", "info", "-a", dir.filePath("missing.kxdb")}).exitCode == 3);
    const std::string text = dir.filePath("text.kxdb");
    CHECK(kx::test::writeFile(text, "plain text"));
    const auto result = runKx({"archive", "list", "-a", text});
    CHECK(result.exitCode == 3);
    CHECK(contains(result.err, "not an SQLite database"));
}

TEST_CASE("unreadable input exits 3: a folder given as an export, an export that is no JSON")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("a.kxdb");
    const auto folder = runKx({"archive", "import", "-a", archive, dir.path()});
    CHECK(folder.exitCode == kx::cli::BadInput);
    CHECK(contains(folder.err, "it is a folder"));
    const std::string text = dir.filePath("export.json");
    CHECK(kx::test::writeFile(text, "{ not json"));
    const auto notJson = runKx({"archive", "import", "-a", archive, text});
    CHECK(notJson.exitCode == kx::cli::BadInput);
    CHECK(contains(notJson.err, "is not valid JSON"));
    CHECK_FALSE(kx::test::fileExists(archive));
}

TEST_CASE("a problem file cannot be imported without the tools that run it: exit 5")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("a.kxdb");
    const std::string problem = KX_TEST_DATA_DIR "/kernelbench/relu.py";
    // Without bubblewrap the file's Python is not run unconfined unless asked to.
    const auto noSandbox = runKx({"import", problem, "-a", archive}, {}, {{"KX_BWRAP", ""}});
    CHECK_MESSAGE(noSandbox.exitCode == kx::cli::Unavailable, noSandbox.err);
    CHECK(contains(noSandbox.err, "bubblewrap"));
    // Without the Python that traces it (unconfined, so that only Python is missing).
    const auto noPython =
        runKx({"import", problem, "-a", archive, "--no-sandbox"}, {}, {{"KX_PYTHON", dir.filePath("no-such-python3")}});
    CHECK_MESSAGE(noPython.exitCode == kx::cli::Unavailable, noPython.err);
    CHECK(contains(noPython.err, "Python 3 was not found"));
    // kx search imports a problem file the same way, and fails the same way before any worker starts.
    const auto search = runKx({"search", problem, "-a", archive, "--worker", "/bin/false"}, {}, {{"KX_BWRAP", ""}});
    CHECK_MESSAGE(search.exitCode == kx::cli::Unavailable, search.err);
    CHECK_FALSE(kx::test::fileExists(archive));
}

TEST_CASE("searches with a worker command")
{
    // The fake worker stands in for a GPU: the real engine, proposer, NVRTC and archive do the rest.
    TemporaryDir dir;
    const std::string archive = dir.filePath("search.kxdb");
    const auto search = runKx({"search", "gelu_tanh", "-a", archive, "--worker", KX_FAKE_WORKER, "--generations", "2",
                               "--children", "3", "--seed", "4"});
    CHECK_MESSAGE(search.exitCode == 0, search.err);
    CHECK(contains(search.out, "new best"));
    const auto runs = parseJson(runKx({"runs", "-a", archive, "--json"}).out);
    REQUIRE(runs.is_array());
    REQUIRE(runs.size() == std::size_t(1));
    CHECK(runs.front().value("state", std::string()) == std::string("finished"));
    CHECK(runs.front().value("candidates", 0) >= 4);
    const auto best = runKx({"best", "gelu_tanh", "-a", archive, "--json"});
    CHECK(best.exitCode == 0);
    CHECK(parseJson(best.out).size() == std::size_t(1));

    // Continuing a finished run that reached its budget stops at once and changes nothing.
    const int before = runs.front().value("candidates", 0);
    CHECK(runKx({"resume", "1", "-a", archive, "--worker", KX_FAKE_WORKER}).exitCode == 0);
    const auto after = parseJson(runKx({"runs", "-a", archive, "--json"}).out);
    REQUIRE(after.is_array());
    REQUIRE_FALSE(after.empty());
    CHECK(after.front().value("candidates", 0) == before);
}

TEST_CASE("verdicts from the command line: accept, reject with the likely reason, retract")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("verdicts.kxdb");
    REQUIRE(runKx({"search", "gelu_tanh", "-a", archive, "--worker", KX_FAKE_WORKER, "--generations", "1", "--children",
                   "2", "--seed", "4"})
                .exitCode
            == 0);
    const auto best = parseJson(runKx({"best", "gelu_tanh", "-a", archive, "--json"}).out);
    REQUIRE(best.size() == std::size_t(1));
    const std::string id = best.front().at("candidate").get<std::string>();

    // Exactly one of --accept, --reject, --retract; reasons from the list.
    CHECK(runKx({"verdict", id, "-a", archive}).exitCode == 2);
    CHECK(runKx({"verdict", id, "-a", archive, "--accept", "--reject"}).exitCode == 2);
    const auto badReason = runKx({"verdict", id, "-a", archive, "--reject", "--reason", "ugly"});
    CHECK(badReason.exitCode == 2);
    CHECK(contains(badReason.err, "exploits-harness"));
    CHECK(runKx({"verdict", "ffffffffff", "-a", archive, "--accept"}).exitCode == 1);

    const auto accepted = runKx({"verdict", id.substr(0, 8), "-a", archive, "--accept", "--note", "checked by hand"});
    CHECK_MESSAGE(accepted.exitCode == 0, accepted.err);
    CHECK(contains(accepted.out, "accepted " + id.substr(0, 12) + " (verified-speedup)"));
    CHECK(contains(runKx({"archive", "show", id, "-a", archive}).out, "checked by hand"));

    // Rejected (no flags: the likely reason is "incorrect"), it is no longer the best.
    const auto rejected = runKx({"verdict", id, "-a", archive, "--reject"});
    CHECK(contains(rejected.out, "rejected " + id.substr(0, 12) + " (incorrect)"));
    const auto after = parseJson(runKx({"best", "gelu_tanh", "-a", archive, "--json"}).out);
    for (const auto &row : after)
        CHECK(row.at("candidate").get<std::string>() != id);

    // Retracting the rejection puts the acceptance back in force; with none left, nothing to retract.
    CHECK(contains(runKx({"verdict", id, "-a", archive, "--retract"}).out, "retracted the verdict"));
    const auto restored = parseJson(runKx({"best", "gelu_tanh", "-a", archive, "--json"}).out);
    REQUIRE(restored.size() == std::size_t(1));
    CHECK(restored.front().at("candidate").get<std::string>() == id);
    CHECK(runKx({"verdict", id, "-a", archive, "--retract"}).exitCode == 0);
    CHECK(runKx({"verdict", id, "-a", archive, "--retract"}).exitCode == 1);
}

TEST_CASE("a search on two GPUs times its best kernels again on both")
{
    // The fake worker poses as two GPUs of one model (it tells the cards apart by their UUIDs).
    TemporaryDir dir;
    const std::string archive = dir.filePath("two.kxdb");
    const auto search =
        runKx({"search", "gelu_tanh", "-a", archive, "--worker", std::string(KX_FAKE_WORKER) + " --gpus 2", "--gpus",
               "0,1", "--generations", "2", "--children", "3", "--seed", "4", "--retime-top", "2"});
    CHECK_MESSAGE(search.exitCode == 0, search.err);
    CHECK_MESSAGE(contains(search.out, "timing the best 2 kernels again on each of 2 GPUs"), search.out);
    CHECK(contains(search.out, "on 2 GPUs:"));
    CHECK(contains(search.out, "GPU-fake-0"));
    CHECK(contains(search.out, "GPU-fake-1"));
    const auto runs = parseJson(runKx({"runs", "-a", archive, "--json"}).out);
    REQUIRE(runs.size() == std::size_t(1));
    CHECK(runs.front().value("state", std::string()) == std::string("finished"));
}

TEST_CASE("a search takes the size limit of a problem file it imports")
{
    // KernelBench problems of several GB (23_Softmax: 6.4 GB) are searched by path: the limit must be settable.
    const auto help = runKx({"search", "--help"});
    CHECK(contains(help.out, "--max-mb"));
    CHECK(runKx({"search", "relu", "--max-mb", "0"}).exitCode == 2);
    CHECK(runKx({"search", "relu", "--max-mb", "-5"}).exitCode == 2);
}

TEST_CASE("a search without a GPU exits 4")
{
    TemporaryDir dir;
    const auto search =
        runKx({"search", "relu", "-a", dir.filePath("a.kxdb"), "--worker", std::string(KX_FAKE_WORKER) + " --gpus 0"});
    CHECK(search.exitCode == 4);
    CHECK(contains(search.err, "no GPU"));
    CHECK(runKx({"search", "no_such_op"}).exitCode == 3);
    CHECK(runKx({"ops"}).exitCode == 0);
    const auto translated = runKx({"translate", "softmax"});
    CHECK(translated.exitCode == 0);
    CHECK(contains(translated.out, "softmax_kernel"));
}

TEST_CASE("an unknown candidate fails")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("a.kxdb");
    CHECK(runKx({"archive", "import", "-a", archive, kSample}).exitCode == 0);
    const auto result = runKx({"archive", "show", "-a", archive, "ffffffff"});
    CHECK(result.exitCode == 1);
    CHECK(contains(result.err, "no candidate"));
}

TEST_CASE("a search in which nothing could be proposed fails with the proposer's errors")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("search.kxdb");
    const std::string failing = std::string(KX_TEST_DATA_DIR) + "/propose/failing-command.sh";
    const auto search = runKx({"search", "relu", "-a", archive, "--worker", KX_FAKE_WORKER, "--proposer", "command",
                               "--command", failing, "--generations", "2", "--children", "2", "--no-inductor"});
    CHECK_MESSAGE(search.exitCode == 1, (search.out + search.err));
    CHECK_MESSAGE(contains(search.err, "nothing could be proposed"), search.err);
    CHECK_MESSAGE(contains(search.err, "exited with status 3; stderr: quota exceeded for this key"), search.err);
    const auto runs = parseJson(runKx({"runs", "-a", archive, "--json"}).out);
    REQUIRE(runs.is_array());
    REQUIRE(runs.size() == std::size_t(1));
    CHECK(runs.front().value("state", std::string()) == std::string("failed"));
}

TEST_CASE("Ctrl-C while NVRTC compiles a candidate stops the search gracefully")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("search.kxdb");
    const std::string slow = std::string(KX_TEST_DATA_DIR) + "/propose/slow-compile-command.sh";
    kx::test::ChildProcess kx;
    REQUIRE(kx.start({KX_CLI, "search", "relu", "-a", archive, "--worker", KX_FAKE_WORKER, "--proposer", "command",
                      "--command", slow, "--generations", "1", "--no-inductor"}));
    // The proposer answers at once; NVRTC then works on the candidate for minutes.
    REQUIRE_MESSAGE(kx.waitForOutput("proposer: command", std::chrono::seconds(60)), (kx.out() + kx.err()));
    std::this_thread::sleep_for(std::chrono::seconds(3));
    kx.sendSignal(SIGINT);
    const auto result = kx.finish(std::chrono::seconds(30));
    CHECK_FALSE(result.timedOut);
    CHECK_MESSAGE(result.exitCode == 130, (result.out + result.err));
    CHECK_MESSAGE(contains(result.err, "stopping"), result.err);
    const auto runs = parseJson(runKx({"runs", "-a", archive, "--json"}).out);
    REQUIRE(runs.is_array());
    REQUIRE(runs.size() == std::size_t(1));
    CHECK(runs.front().value("state", std::string()) == std::string("cancelled"));
}
