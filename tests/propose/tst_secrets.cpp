// Secrets stay where they are: child processes (GPU workers, the import helper, command proposers, the
// disassembler) never see the API key or other secret variables, and a candidate that includes
// /proc/self/environ puts the key neither into the archive nor into a later prompt (issue 23).
#include "fakechatserver.h"
#include "proposetestdata.h"

#include "core/eval/workerprocess.h"
#include "core/kernelbench/problemimporter.h"
#include "core/plan/disassembler.h"
#include "core/plan/nvrtccompiler.h"
#include "core/propose/commandrunner.h"
#include "core/propose/proposerfactory.h"
#include "core/util/childenvironment.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace kx;
using namespace kx::test;

namespace {

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

// Variables set in this process for one test and removed again.
class ScopedVariables
{
public:
    explicit ScopedVariables(std::map<std::string, std::string> variables)
        : m_variables(std::move(variables))
    {
        for (const auto &[name, value] : m_variables)
            ::setenv(name.c_str(), value.c_str(), 1);
    }
    ~ScopedVariables()
    {
        for (const auto &[name, value] : m_variables)
            ::unsetenv(name.c_str());
    }
    const std::map<std::string, std::string> &variables() const { return m_variables; }

private:
    std::map<std::string, std::string> m_variables;
};

// The secrets this suite plants: the default key variable, one whose name the LLM settings give, and others that
// are secrets by their names.
const std::map<std::string, std::string> kSecrets{
    {"OPENAI_API_KEY", "sk-kx-child-openai-4d1f"},     {"KX_TEST_MODEL_ACCESS", "kx-child-named-by-settings-93ab"},
    {"KX_TEST_SERVICE_TOKEN", "kx-child-token-77e0"},  {"kx_test_db_password", "kx-child-password-5c2d"},
    {"KX_TEST_UPLOAD_SECRET", "kx-child-secret-0b8e"},
};

// The child saw none of the secrets (by name or value), and the rest of the environment did reach it.
void checkNoSecrets(const std::string &environment, const std::string &where)
{
    CAPTURE(where);
    REQUIRE_MESSAGE(contains(environment, "KX_TEST_HARMLESS=visible"), environment);
    REQUIRE(contains(environment, "PATH="));
    for (const auto &[name, value] : kSecrets) {
        CHECK_MESSAGE(!contains(environment, name + "="), name);
        CHECK_MESSAGE(!contains(environment, value), name);
    }
}

std::string makeScript(const TemporaryDir &dir, const std::string &name, const std::string &text)
{
    const std::string path = dir.filePath(name);
    REQUIRE(writeFile(path, "#!/bin/sh\n" + text));
    ::chmod(path.c_str(), 0755);
    return path;
}

std::string readAllFiles(const std::string &dir, const std::string &prefix = {})
{
    std::string all;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
        if (entry.is_regular_file() && entry.path().filename().string().rfind(prefix, 0) == 0)
            all += readFile(entry.path().string()) + "\n";
    return all;
}

struct KxResult
{
    int exitCode = -1;
    std::string out;
};

KxResult runKx(const std::vector<std::string> &arguments, const ChildProcess::Environment &environment = {})
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto result = runProgram(argv, environment, std::chrono::seconds(120));
    return {result.timedOut ? -1 : result.exitCode, result.out + result.err};
}

} // namespace

TEST_CASE("child processes see no secret variable")
{
    ScopedVariables secrets(kSecrets);
    ScopedVariables harmless(std::map<std::string, std::string>{{"KX_TEST_HARMLESS", "visible"}});
    // The LLM settings name the key's variable: from then on it is a secret whatever its name.
    ProposerSettings settings;
    settings.kind = ProposerKind::Llm;
    settings.llm.apiKeyEnv = "KX_TEST_MODEL_ACCESS";
    (void)ProposerResources::forSettings(settings);

    SUBCASE("a GPU worker or the import helper (WorkerProcess)")
    {
        WorkerProcess process;
        REQUIRE(process.start({"env"}));
        process.closeStdin();
        std::string environment;
        std::string line;
        const auto deadline = WorkerProcess::Clock::now() + std::chrono::seconds(10);
        while (process.readLine(line, deadline) == WorkerProcess::ReadStatus::Line)
            environment += line + "\n";
        checkNoSecrets(environment, "worker process");
    }

    SUBCASE("a command proposer's command")
    {
        const auto output = CommandRunner::run("env", {}, std::chrono::seconds(10), {});
        REQUIRE(output);
        checkNoSecrets(output->out, "command");
    }

    SUBCASE("the disassembler")
    {
        TemporaryDir dir;
        REQUIRE(dir.isValid());
        makeScript(dir, "cuobjdump", "env\n");
        const std::string path = std::getenv("PATH");
        ::setenv("PATH", (dir.path() + ":" + path).c_str(), 1);
        const auto sass = Disassembler::sass("not really a cubin");
        ::setenv("PATH", path.c_str(), 1);
        REQUIRE_MESSAGE(sass, (sass ? "" : sass.error().message));
        checkNoSecrets(*sass, "disassembler");
    }

    SUBCASE("the KernelBench import helper")
    {
        TemporaryDir dir;
        REQUIRE(dir.isValid());
        // A stand-in for Python: it records its environment for the torch probe and for the helper run.
        const std::string python = makeScript(dir, "python3", "env > \"$(dirname \"$0\")/env-$$.txt\"\n");
        const std::string problem = dir.filePath("problem.py");
        REQUIRE(writeFile(problem, "import torch\n"));
        ImportOptions options;
        options.python = python;
        options.helper = problem;
        (void)ProblemImporter(options).importFile(problem);
        const std::string environments = readAllFiles(dir.path(), "env-");
        REQUIRE(contains(environments, "PATH="));
        checkNoSecrets(environments, "import helper");
    }
}

TEST_CASE("secret variables are known by their names, or by being marked")
{
    for (const char *name : {"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "HF_TOKEN", "GITHUB_TOKEN", "aws_secret_access_key",
                             "DB_PASSWORD", "SMTP_PASSWD", "GOOGLE_APPLICATION_CREDENTIALS", "KX_COMMAND_SECRETS"}) {
        CAPTURE(name);
        CHECK(isSecretVariable(name));
    }
    for (const char *name : {"PATH", "HOME", "CUDA_VISIBLE_DEVICES", "LD_LIBRARY_PATH", "KX_ARCHIVE", "KX_PYTHON"}) {
        CAPTURE(name);
        CHECK_FALSE(isSecretVariable(name));
    }
    CHECK_FALSE(isSecretVariable("KX_TEST_MARKED_LATER"));
    markSecretVariable("KX_TEST_MARKED_LATER");
    CHECK(isSecretVariable("KX_TEST_MARKED_LATER"));

    ScopedVariables secrets(kSecrets);
    ScopedVariables harmless(std::map<std::string, std::string>{{"KX_TEST_HARMLESS", "visible"}});
    const ChildEnvironment environment({"KX_TEST_SERVICE_TOKEN"});
    std::string joined;
    std::size_t count = 0;
    for (char *const *entry = environment.envp(); *entry; ++entry, ++count)
        joined += std::string(*entry) + "\n";
    CHECK(count == environment.variables().size());
    CHECK(contains(joined, "KX_TEST_HARMLESS=visible\n"));
    CHECK(contains(joined, "KX_TEST_SERVICE_TOKEN=kx-child-token-77e0\n"));
    CHECK_FALSE(contains(joined, "OPENAI_API_KEY"));
    CHECK_FALSE(contains(joined, "kx_test_db_password"));
}

TEST_CASE("a command that needs a secret gets only the ones it is given by name")
{
    ScopedVariables secrets(kSecrets);
    ScopedVariables given(std::map<std::string, std::string>{{"KX_COMMAND_SECRETS", "KX_TEST_SERVICE_TOKEN"},
                                                             {"KX_TEST_HARMLESS", "visible"}});
    const auto output = CommandRunner::run("env", {}, std::chrono::seconds(10), {});
    REQUIRE(output);
    CHECK(contains(output->out, "KX_TEST_SERVICE_TOKEN=kx-child-token-77e0"));
    CHECK_FALSE(contains(output->out, "OPENAI_API_KEY"));
    CHECK_FALSE(contains(output->out, "kx_test_db_password"));
    // Other children still get none.
    WorkerProcess process;
    REQUIRE(process.start({"env"}));
    process.closeStdin();
    std::string environment;
    std::string line;
    while (process.readLine(line, WorkerProcess::Clock::now() + std::chrono::seconds(10))
           == WorkerProcess::ReadStatus::Line)
        environment += line + "\n";
    CHECK_FALSE(contains(environment, "KX_TEST_SERVICE_TOKEN"));
}

TEST_CASE("kx compile of a file that includes /etc/passwd does not print the file" * needsNvrtc())
{
    TemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string passwd = readFile("/etc/passwd");
    const std::string firstLine = passwd.substr(0, passwd.find('\n'));
    REQUIRE(firstLine.size() > 8);
    const std::string source = dir.filePath("leak.cu");
    REQUIRE(writeFile(source, "#include \"/etc/passwd\"\n"
                              "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n"));
    for (const std::vector<std::string> &arguments :
         {std::vector<std::string>{"compile", source}, std::vector<std::string>{"compile", source, "--json"}}) {
        CAPTURE(arguments.back());
        const KxResult result = runKx(arguments);
        CHECK(result.exitCode == 1);
        CHECK_MESSAGE(!contains(result.out, firstLine), result.out);
        CHECK_MESSAGE(contains(result.out, "/etc/passwd"), result.out);
        CHECK_MESSAGE(contains(result.out, "is not allowed"), result.out);
        CHECK_MESSAGE(contains(result.out, "cuda_fp16.h"), result.out);
    }
}

namespace {

// What an end-to-end search left behind: every byte of its archive folder, and the prompts the proposer saw.
void checkKeyNowhere(const std::string &key, const std::string &archiveDir, const std::vector<std::string> &prompts)
{
    int files = 0;
    for (const auto &entry : std::filesystem::directory_iterator(archiveDir)) {
        if (!entry.is_regular_file())
            continue;
        ++files;
        CHECK_MESSAGE(!contains(readFile(entry.path().string()), key), entry.path().string());
    }
    CHECK(files > 0);
    for (std::size_t i = 0; i < prompts.size(); ++i) {
        CAPTURE(i);
        CHECK(!contains(prompts[i], key));
    }
}

} // namespace

TEST_CASE("a model's candidate that includes /proc/self/environ leaks the key nowhere" * needsNvrtc())
{
    const std::string key = "sk-kx-e2e-llm-8c41d7a2f0";
    FakeChatServer server;
    // The first answer reads the environment; then good kernels, so the search goes on and writes prompts.
    server.setHandler([](const nlohmann::json &, int index) {
        if (index == 0)
            return answer(readDataFile("include-environ-answer.md"));
        const int block = 32 * (1 + index % 32);
        return answer(
            "Variant " + std::to_string(index)
            + ".\n\n```cuda\n"
              "extern \"C\" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, "
              "int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
              "    if (i < n) out[i] = fmaxf(x[i], 0.0f);\n}\n```\n\n```json\n{\"steps\": [{\"kernel\": "
              "\"relu_kernel\", \"grid\": [\"ceil_div(N, "
            + std::to_string(block) + ")\"], \"block\": [\"" + std::to_string(block)
            + "\"], \"args\": [{\"input\": \"x\"}, {\"output\": \"out\"}, "
              "{\"int\": \"N\"}]}]}\n```\n");
    });
    TemporaryDir dir;
    REQUIRE(dir.isValid());
    const std::string archive = dir.filePath("search.kxdb");
    // The key is in kx's environment from its start, where /proc/self/environ shows it.
    const KxResult search = runKx({"search",
                                   "relu",
                                   "-a",
                                   archive,
                                   "--worker",
                                   KX_FAKE_WORKER,
                                   "--proposer",
                                   "llm",
                                   "--endpoint",
                                   server.endpoint(),
                                   "--model",
                                   "fake-model",
                                   "--generations",
                                   "1",
                                   "--children",
                                   "4",
                                   "--seed",
                                   "3",
                                   "--concurrency",
                                   "1"},
                                  {{"OPENAI_API_KEY", key}});
    CHECK_MESSAGE(search.exitCode == 0, search.out);
    CHECK_MESSAGE(contains(search.out, "#include \"/proc/self/environ\" is not allowed"), search.out);
    // The key was there to leak (every request carried it), and the leaking answer was read.
    REQUIRE(server.requestCount() >= 3);
    for (const auto &authorization : server.authorizations())
        REQUIRE(authorization == "Bearer " + key);
    std::vector<std::string> prompts;
    for (const auto &request : server.received())
        prompts.push_back(request.dump());
    checkKeyNowhere(key, dir.path(), prompts);
}

TEST_CASE("a command's candidate that includes /proc/self/environ leaks the key nowhere" * needsNvrtc())
{
    const std::string key = "sk-kx-e2e-command-19f3b6c5";
    TemporaryDir dir;
    TemporaryDir calls;
    REQUIRE(dir.isValid());
    REQUIRE(calls.isValid());
    const std::string archive = dir.filePath("search.kxdb");
    const std::string command = std::string(KX_TEST_DATA_DIR) + "/propose/recording-command.sh " + calls.path();
    const KxResult search = runKx({"search", "relu", "-a", archive, "--worker", KX_FAKE_WORKER, "--proposer", "command",
                                   "--command", command, "--generations", "1", "--children", "4", "--seed", "3"},
                                  {{"OPENAI_API_KEY", key}});
    CHECK_MESSAGE(search.exitCode == 0, search.out);
    CHECK_MESSAGE(contains(search.out, "#include \"/proc/self/environ\" is not allowed"), search.out);
    std::vector<std::string> prompts;
    for (int i = 0; fileExists(calls.filePath("prompt-" + std::to_string(i) + ".txt")); ++i)
        prompts.push_back(readFile(calls.filePath("prompt-" + std::to_string(i) + ".txt")));
    // The first answer was the leaking one; later ones were asked for and written down.
    REQUIRE(prompts.size() >= 3);
    checkKeyNowhere(key, dir.path(), prompts);
    // Nor did the command itself see the key.
    CHECK_FALSE(contains(readAllFiles(calls.path(), "env-"), key));
}
