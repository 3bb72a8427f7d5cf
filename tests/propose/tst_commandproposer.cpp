// The command proposer against small shell scripts: a good answer, a failure, a hang and garbage.
#include "core/ops/builtinops.h"
#include "core/propose/commandproposer.h"
#include "core/propose/commandrunner.h"

#include "temporarydir.h"
#include "testfiles.h"
#include "waituntil.h"

#include <doctest/doctest.h>

#include <csignal>
#include <future>
#include <sstream>

using namespace kx;

namespace {

std::string script(const std::string &name)
{
    return std::string(KX_TEST_DATA_DIR) + "/propose/" + name;
}

CommandProposer proposerFor(const std::string &command, double timeoutSeconds = 30)
{
    const auto templates = PromptTemplates::load(KX_PROMPTS_DIR);
    REQUIRE(templates);
    return CommandProposer({command, timeoutSeconds}, PromptBuilder(*templates));
}

ProposalRequest translateRelu()
{
    ProposalRequest request;
    request.op = *findBuiltInOp("relu");
    request.kind = ProposalKind::Translate;
    return request;
}

} // namespace

TEST_CASE("a good command's answer becomes a candidate with its provenance, and it read the prompt")
{
    const test::TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto promptCopy = temp.filePath("prompt.txt");
    const std::string command = script("prompt-echo-command.sh") + " " + promptCopy;
    auto proposer = proposerFor(command);
    const auto result = proposer.propose(translateRelu(), {});
    REQUIRE_MESSAGE(result.candidates.size() == 1, result.failure);
    const auto &candidate = result.candidates[0];
    CHECK((candidate.origin == Origin::Translated));
    CHECK(candidate.operatorName == "command-translate");
    CHECK(candidate.id == makeCandidateId(candidate.source, candidate.launchPlan));
    REQUIRE(candidate.provenance);
    CHECK(candidate.provenance->proposer == "command");
    CHECK(candidate.provenance->model == command);
    CHECK(candidate.provenance->response.find("relu_kernel") != std::string::npos);
    CHECK(candidate.provenance->promptSha256.size() == 64);
    const auto seen = test::readFile(promptCopy);
    CHECK(seen == candidate.provenance->prompt);
    CHECK(seen.find("torch.relu(x)") != std::string::npos);
}

TEST_CASE("a non-zero exit is a failure with the exit code and stderr")
{
    auto proposer = proposerFor(script("failing-command.sh"));
    const auto result = proposer.propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("exited with status 3") != std::string::npos);
    CHECK(result.failure.find("quota exceeded for this key") != std::string::npos);
}

TEST_CASE("a hanging command is killed at its timeout")
{
    auto proposer = proposerFor(script("hanging-command.sh"), 0.5);
    const auto result = proposer.propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("did not finish within") != std::string::npos);
}

TEST_CASE("garbage output is rejected with a reason")
{
    auto proposer = proposerFor(script("garbage-command.sh"));
    const auto result = proposer.propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("command output rejected") != std::string::npos);
}

TEST_CASE("a missing program and a cancelled command are reported")
{
    auto missing = proposerFor(script("no-such-command.sh"));
    const auto result = missing.propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("exited with status 127") != std::string::npos);

    std::stop_source stop;
    auto running = std::async(std::launch::async, [&] {
        return CommandRunner::run("sleep 600", "", std::chrono::seconds(600), stop.get_token());
    });
    stop.request_stop();
    const auto output = running.get();
    REQUIRE_FALSE(output);
    CHECK(output.error().message == "cancelled");
}

TEST_CASE("a command that ignores its input still gets a large prompt without blocking")
{
    const std::string input(4 << 20, 'x');
    const auto output = CommandRunner::run("echo done", input, std::chrono::seconds(30), {});
    REQUIRE_MESSAGE(output, (output ? "" : output.error().message));
    CHECK(output->exitCode == 0);
    CHECK(output->out == "done\n");
    const auto echoed = CommandRunner::run("wc -c", input, std::chrono::seconds(30), {});
    REQUIRE(echoed);
    CHECK(echoed->out.find(std::to_string(input.size())) != std::string::npos);
}

namespace {

// Alive and not yet reaped: a process that was killed and reaped is gone from /proc.
bool running(pid_t pid)
{
    const std::string stat = test::readFile("/proc/" + std::to_string(pid) + "/stat");
    const auto close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

std::vector<pid_t> pidsIn(const std::string &path)
{
    std::vector<pid_t> pids;
    std::istringstream lines(test::readFile(path));
    for (long pid = 0; lines >> pid;)
        pids.push_back(pid_t(pid));
    return pids;
}

} // namespace

TEST_CASE("every process a command started is stopped with it, also one in a session of its own")
{
    for (const std::string mode : {"hang", "answer"}) {
        CAPTURE(mode);
        const test::TemporaryDir temp;
        REQUIRE(temp.isValid());
        const std::string pidFile = temp.filePath("pids");
        auto proposer = proposerFor(script("daemonizing-command.sh") + " " + pidFile + " " + mode, 3);
        const auto result = proposer.propose(translateRelu(), {});
        if (mode == "hang")
            CHECK(result.failure.find("did not finish within 3 s") != std::string::npos);
        else
            CHECK_MESSAGE(result.candidates.size() == 1, result.failure);
        const std::vector<pid_t> pids = pidsIn(pidFile);
        CHECK(pids.size() == 3);
        for (const pid_t pid : pids) {
            CAPTURE(pid);
            CHECK(test::waitUntil([pid] { return !running(pid); }, std::chrono::seconds(5)));
            if (running(pid))
                ::kill(pid, SIGKILL); // Leave nothing behind, whatever the verdict.
        }
    }
}

TEST_CASE("output beyond the limit is an error that names the limit")
{
    auto proposer = proposerFor(script("huge-output-command.sh"));
    const auto result = proposer.propose(translateRelu(), {});
    CHECK(result.candidates.empty());
    CHECK_MESSAGE(result.failure.find("more than 16 MiB to stdout") != std::string::npos, result.failure);

    const auto under = CommandRunner::run("head -c 16000000 /dev/zero", "", std::chrono::seconds(30), {});
    REQUIRE_MESSAGE(under, (under ? "" : under.error().message));
    CHECK(under->out.size() == 16000000);
}
