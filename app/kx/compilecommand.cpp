// kx compile FILE.cu: compile a candidate with NVRTC and report its resource use.
#include "commands.h"

#include "core/domain/domainjson.h"
#include "core/eval/nvrtccompiler.h"
#include "core/eval/ptxasreport.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

extern char **environ;

namespace kx::cli {
namespace {

namespace fs = std::filesystem;

struct CompileCommandOptions
{
    std::string file;
    std::string arch = "sm_90";
    bool fastMath = false;
    std::string ptxPath;
    std::string sassPath;
    std::string cubinPath;
    bool json = false;
};

bool readFile(const std::string &path, std::string &text, std::string &why)
{
    std::error_code error;
    if (fs::is_directory(path, error)) {
        why = "is a folder";
        return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = fs::exists(path, error) ? "cannot be opened" : "does not exist";
        return false;
    }
    std::ostringstream buffer;
    buffer << in.rdbuf();
    text = buffer.str();
    return true;
}

bool writeFile(const std::string &path, const std::string &data)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(data.data(), std::streamsize(data.size()));
    return bool(out);
}

// NVRTC names the program candidate.cu; the user knows the file by its own name.
std::string withFileName(const std::string &log, const std::string &file)
{
    const std::string program = "candidate.cu(";
    std::string result;
    std::size_t start = 0;
    while (start < log.size()) {
        if (log.compare(start, program.size(), program) == 0) {
            result += file + "(";
            start += program.size();
        }
        const std::size_t end = std::min(log.find('\n', start), log.size() - 1) + 1;
        result += log.substr(start, end - start);
        start = end;
    }
    return result;
}

// cuobjdump or nvdisasm, from PATH or the toolkit's bin folder.
std::string findDisassembler(std::string &searched)
{
    std::vector<fs::path> folders;
    if (const char *path = std::getenv("PATH")) {
        std::istringstream parts(path);
        std::string part;
        while (std::getline(parts, part, ':')) {
            if (!part.empty())
                folders.emplace_back(part);
        }
    }
#ifdef KX_CUDA_BIN_DIR
    folders.emplace_back(KX_CUDA_BIN_DIR);
#endif
    searched = "PATH";
#ifdef KX_CUDA_BIN_DIR
    searched += " and " + std::string(KX_CUDA_BIN_DIR);
#endif
    for (const char *tool : {"cuobjdump", "nvdisasm"}) {
        for (const fs::path &folder : folders) {
            const fs::path candidate = folder / tool;
            if (::access(candidate.c_str(), X_OK) == 0)
                return candidate.string();
        }
    }
    return {};
}

// Runs the disassembler on a cubin file with its standard output going to outputPath.
bool disassemble(const std::string &tool, const std::string &cubinPath, const std::string &outputPath,
                 std::string &why)
{
    const bool isCuobjdump = fs::path(tool).filename() == "cuobjdump";
    std::vector<std::string> arguments = {tool};
    if (isCuobjdump)
        arguments.push_back("-sass");
    arguments.push_back(cubinPath);
    std::vector<char *> argv;
    for (std::string &argument : arguments)
        argv.push_back(argument.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    pid_t pid = 0;
    const int spawnError = posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (spawnError != 0) {
        why = "cannot start " + tool;
        return false;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        why = tool + " failed";
        return false;
    }
    return true;
}

// A temporary cubin for the disassembler when the user did not ask to keep one.
class TemporaryFile
{
public:
    explicit TemporaryFile(const std::string &data)
    {
        std::string pattern = (fs::temp_directory_path() / "kx-compile-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0)
            return;
        ::close(fd);
        m_path = pattern;
        if (!writeFile(m_path, data)) {
            fs::remove(m_path);
            m_path.clear();
        }
    }
    ~TemporaryFile()
    {
        if (!m_path.empty()) {
            std::error_code error;
            fs::remove(m_path, error);
        }
    }
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

const char *kindName(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "pointer";
    case KernelParam::Kind::ConstPointer: return "const-pointer";
    case KernelParam::Kind::Int: return "int";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::Other: return "other";
    }
    return "other";
}

std::string signatureText(const KernelSignature &kernel)
{
    std::string text = kernel.name + "(";
    for (std::size_t i = 0; i < kernel.params.size(); ++i) {
        const KernelParam &param = kernel.params[i];
        text += (i ? ", " : "") + param.type + (param.name.empty() ? "" : " " + param.name);
    }
    return text + ")";
}

void printJson(const CompileCommandOptions &options, const CompileResult &result,
               const std::vector<PtxasFunction> &functions, const std::vector<std::string> &notes)
{
    nlohmann::json kernels = nlohmann::json::array();
    for (const KernelSignature &kernel : result.kernels) {
        nlohmann::json params = nlohmann::json::array();
        for (const KernelParam &param : kernel.params)
            params.push_back({{"type", param.type}, {"name", param.name}, {"kind", kindName(param.kind)}});
        kernels.push_back({{"name", kernel.name}, {"params", params}});
    }
    nlohmann::json perFunction = nlohmann::json::array();
    for (const PtxasFunction &function : functions) {
        perFunction.push_back({{"name", function.name},
                               {"entry", function.entry},
                               {"registers", function.registers},
                               {"stackFrameBytes", function.stackFrameBytes},
                               {"spillStoreBytes", function.spillStoreBytes},
                               {"spillLoadBytes", function.spillLoadBytes},
                               {"sharedBytes", function.sharedBytes}});
    }
    nlohmann::json stats = result.stats;
    stats["log"] = withFileName(result.stats.log, options.file);
    std::cout << nlohmann::json{{"file", options.file},
                                {"arch", options.arch},
                                {"nvrtcVersion", NvrtcCompiler::version()},
                                {"ok", result.ok},
                                {"error", withFileName(result.error, options.file)},
                                {"stats", stats},
                                {"kernels", kernels},
                                {"functions", perFunction},
                                {"notes", notes}}
                     .dump(2)
              << '\n';
}

void printText(const CompileCommandOptions &options, const CompileResult &result,
               const std::vector<PtxasFunction> &functions, const std::vector<std::string> &notes)
{
    const std::string errorText = withFileName(result.error, options.file);
    std::cout << "file:          " << options.file << '\n'
              << "arch:          " << options.arch << " (NVRTC " << NvrtcCompiler::version() << ")\n"
              << "result:        " << (result.ok ? "compiled" : "compile error: " + errorText) << '\n'
              << "compile time:  " << std::fixed << std::setprecision(1) << result.stats.compileMs << " ms\n";
    if (result.ok) {
        std::cout << "registers:     " << result.stats.registers << " (most of any kernel)\n"
                  << "spills:        " << result.stats.spillBytes << " bytes of local memory per thread\n"
                  << "shared memory: " << result.stats.staticSharedBytes << " bytes static\n";
    }
    std::cout << "kernels:       " << result.kernels.size() << " extern \"C\" __global__\n";
    for (const KernelSignature &kernel : result.kernels) {
        std::cout << "  " << signatureText(kernel);
        for (const PtxasFunction &function : functions) {
            if (function.entry && function.name == kernel.name)
                std::cout << "  [" << function.registers << " registers, " << function.stackFrameBytes
                          << " B stack, " << function.spillStoreBytes << " B spill stores, " << function.sharedBytes
                          << " B shared]";
        }
        std::cout << '\n';
    }
    for (const std::string &note : notes)
        std::cout << note << '\n';
    if (!result.stats.log.empty()) {
        const std::string log = withFileName(result.stats.log, options.file);
        std::cout << "log:\n" << log << (log.back() == '\n' ? "" : "\n");
    }
}

int runCompile(const CompileCommandOptions &options)
{
    std::string source;
    std::string why;
    if (!readFile(options.file, source, why)) {
        std::cerr << "kx compile: " << options.file << ' ' << why << '\n';
        return BadInput;
    }
    if (!NvrtcCompiler::available()) {
        std::cerr << "kx compile: this kx was built without NVRTC (no CUDA toolkit when it was configured)\n";
        return NoGpu;
    }
    CompileOptions compileOptions;
    compileOptions.arch = options.arch;
    compileOptions.fastMath = options.fastMath;
    compileOptions.wantPtx = !options.ptxPath.empty();
    const CompileResult result = NvrtcCompiler().compile(source, compileOptions);
    const std::vector<PtxasFunction> functions = parsePtxasReport(result.stats.log);

    std::vector<std::string> notes;
    bool outputsFailed = false;
    auto write = [&](const std::string &path, const std::string &data, const char *what) {
        if (path.empty() || !result.ok)
            return;
        if (writeFile(path, data)) {
            notes.push_back(std::string(what) + " written to " + path);
        } else {
            std::cerr << "kx compile: cannot write " << path << '\n';
            outputsFailed = true;
        }
    };
    write(options.ptxPath, result.ptx, "PTX");
    write(options.cubinPath, result.cubin, "cubin");
    if (!options.sassPath.empty() && result.ok) {
        std::string searched;
        const std::string tool = findDisassembler(searched);
        if (tool.empty()) {
            notes.push_back("SASS not written: neither cuobjdump nor nvdisasm was found (searched " + searched + ")");
        } else {
            std::unique_ptr<TemporaryFile> temporary;
            std::string cubinPath = options.cubinPath;
            if (cubinPath.empty()) {
                temporary = std::make_unique<TemporaryFile>(result.cubin);
                cubinPath = temporary->path();
            }
            std::string failure;
            if (!cubinPath.empty() && disassemble(tool, cubinPath, options.sassPath, failure)) {
                notes.push_back("SASS written to " + options.sassPath + " (" + fs::path(tool).filename().string() + ")");
            } else {
                std::cerr << "kx compile: SASS not written: " << (failure.empty() ? "no temporary file" : failure) << '\n';
                outputsFailed = true;
            }
        }
    }

    if (options.json)
        printJson(options, result, functions, notes);
    else
        printText(options, result, functions, notes);
    if (!result.ok || outputsFailed)
        return Failure;
    return Ok;
}

} // namespace

void addCompileCommand(CLI::App &app, Action &action)
{
    auto options = std::make_shared<CompileCommandOptions>();
    auto *command = app.add_subcommand(
        "compile", "Compile a device-only CUDA file with NVRTC; report registers, spills and shared memory");
    command->add_option("file", options->file, "CUDA source (device code only)")->required();
    command->add_option("--arch", options->arch, "GPU architecture")->capture_default_str();
    command->add_flag("--fast-math", options->fastMath, "Compile with --use_fast_math");
    command->add_option("--ptx", options->ptxPath, "Write the PTX to this file");
    command->add_option("--sass", options->sassPath, "Write the SASS to this file (needs cuobjdump or nvdisasm)");
    command->add_option("--cubin", options->cubinPath, "Write the cubin to this file");
    command->add_flag("--json", options->json, "Print JSON");
    command->callback([&action, options] { action = [options] { return runCompile(*options); }; });
}

} // namespace kx::cli
