// NVRTC runs in a child process with a time and a memory limit: a candidate that compiles for minutes or grows
// without end is stopped with a message that says which limit it hit, and Ctrl-C stops kx compile gracefully.
#include "core/plan/nvrtccompiler.h"

#include "childprocess.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

using namespace kx;

namespace {

using Clock = std::chrono::steady_clock;

doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

const std::string kSlowFile = std::string(KX_TEST_DATA_DIR) + "/devicecode/slow-template.cu";
const std::string kKernel = "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n";

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

double secondsSince(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string slowSource()
{
    const std::string source = test::readFile(kSlowFile);
    REQUIRE_FALSE(source.empty());
    return source;
}

} // namespace

TEST_CASE("a compile that runs past its time limit is stopped and says so" * needsNvrtc())
{
    CompileOptions options;
    options.timeoutSeconds = 2;
    const auto start = Clock::now();
    const CompileResult result = NvrtcCompiler().compile(slowSource(), options);
    CHECK(secondsSince(start) < 20);
    CHECK_FALSE(result.ok);
    CHECK(result.errorKind == ErrorKind::Failed); // stopped by its limit, not cancelled
    CHECK_MESSAGE(contains(result.error, "the compile took longer than 2 s"), result.error);
    // The next compile gets a working child.
    const CompileResult next = NvrtcCompiler().compile(kKernel);
    CHECK_MESSAGE(next.ok, next.stats.log);
}

TEST_CASE("a compile that grows past its memory limit is stopped and says so" * needsNvrtc())
{
    CompileOptions options;
    options.memoryLimitMb = 200;
    const auto start = Clock::now();
    const CompileResult result = NvrtcCompiler().compile(slowSource(), options);
    CHECK(secondsSince(start) < 40);
    CHECK_FALSE(result.ok);
    CHECK_MESSAGE(contains(result.error, "the compile took more than 200 MB of memory"), result.error);
}

TEST_CASE("a stop request ends a compile at once" * needsNvrtc())
{
    std::stop_source stop;
    std::jthread stopper([&stop] {
        std::this_thread::sleep_for(std::chrono::milliseconds(500));
        stop.request_stop();
    });
    const auto start = Clock::now();
    const CompileResult result = NvrtcCompiler().compile(slowSource(), {}, stop.get_token());
    CHECK(secondsSince(start) < 10);
    CHECK_FALSE(result.ok);
    CHECK(result.errorKind == ErrorKind::Cancelled);
}

TEST_CASE("compiles in child processes give what NVRTC gives, on several threads at once" * needsNvrtc())
{
    std::vector<CompileResult> results(6);
    {
        std::vector<std::jthread> threads;
        for (std::size_t i = 0; i < results.size(); ++i)
            threads.emplace_back([&results, i] { results[i] = NvrtcCompiler().compile(kKernel); });
    }
    for (const CompileResult &result : results) {
        CHECK_MESSAGE(result.ok, result.error);
        CHECK(result.cubin == results[0].cubin);
        CHECK(result.stats.registers > 0);
        CHECK(contains(result.stats.log, "Compiling entry function 'k'"));
    }
}

// Whether a process whose parent is `parent` runs the program `name` (read from /proc).
bool hasChildNamed(pid_t parent, const std::string &name)
{
    std::error_code error;
    for (const auto &entry : std::filesystem::directory_iterator("/proc", error)) {
        std::ifstream stat(entry.path() / "stat");
        std::string line;
        if (!std::getline(stat, line))
            continue;
        const auto open = line.find('('), close = line.rfind(')');
        if (open == std::string::npos || close == std::string::npos || close + 4 >= line.size())
            continue;
        std::istringstream rest(line.substr(close + 2));
        char state = 0;
        long ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent && line.substr(open + 1, close - open - 1) == name.substr(0, 15))
            return true;
    }
    return false;
}

TEST_CASE("kx compile: a time limit that is hit exits 1 with the limit; Ctrl-C exits 130" * needsNvrtc())
{
    const auto limited =
        test::runProgram({KX_CLI, "compile", kSlowFile, "--compile-timeout", "2"}, {}, std::chrono::seconds(60));
    CHECK(limited.exitCode == 1);
    CHECK_MESSAGE(contains(limited.out + limited.err, "the compile took longer than 2 s"), (limited.out + limited.err));

    test::ChildProcess kx;
    REQUIRE(kx.start({KX_CLI, "compile", kSlowFile}));
    // NVRTC is at work once kx has started its compiler child; a fixed wait lost that race on a loaded machine
    // (SIGINT then met kx before its handler was installed).
    const auto started = Clock::now();
    while (!hasChildNamed(kx.pid(), "kx-nvrtc") && secondsSince(started) < 30)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE(hasChildNamed(kx.pid(), "kx-nvrtc"));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const auto interrupted = Clock::now();
    kx.sendSignal(SIGINT);
    const test::ProgramResult result = kx.finish(std::chrono::seconds(30));
    CHECK_FALSE(result.timedOut);
    CHECK(secondsSince(interrupted) < 10);
    CHECK_MESSAGE(result.exitCode == 130, result.err);
    CHECK_MESSAGE(contains(result.err, "interrupted"), result.err);
}
