// The command proposer against small shell scripts: a good answer, a failure, a hang and garbage.
#include "core/ops/builtinops.h"
#include "core/propose/commandproposer.h"
#include "core/propose/commandrunner.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <future>

using namespace kx;

namespace {

std::string script(const std::string &name) { return std::string(KX_TEST_DATA_DIR) + "/propose/" + name; }

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
