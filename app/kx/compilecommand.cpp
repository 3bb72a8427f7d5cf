// kx compile FILE.cu: compile a candidate with NVRTC and report its resource use.
#include "commands.h"
#include "interrupt.h"

#include "core/domain/domainjson.h"
#include "core/plan/disassembler.h"
#include "core/plan/nvrtccompiler.h"
#include "core/plan/ptxasreport.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>

namespace kx::cli {
namespace {

namespace fs = std::filesystem;

struct CompileCommandOptions
{
    std::string file;
    std::string arch = kDefaultArch;
    bool fastMath = false;
    std::string ptxPath;
    std::string sassPath;
    std::string cubinPath;
    bool json = false;
    CompileOptions limits; // Only the time and memory limits are taken from here.
};

Expected<std::string> readFile(const std::string &path)
{
    std::error_code error;
    if (fs::is_directory(path, error))
        return Error::badInput(path + " is a folder");
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error::badInput(path + (fs::exists(path, error) ? " cannot be opened" : " does not exist"));
    std::ostringstream buffer;
    buffer << in.rdbuf();
    return buffer.str();
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

const char *kindName(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "pointer";
    case KernelParam::Kind::ConstPointer: return "const-pointer";
    case KernelParam::Kind::Int: return "int";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::TensorMap: return "tensor-map";
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
                std::cout << "  [" << function.registers << " registers, " << function.stackFrameBytes << " B stack, "
                          << function.spillStoreBytes << " B spill stores, " << function.sharedBytes << " B shared]";
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
    const Expected<std::string> source = readFile(options.file);
    if (!source) {
        std::cerr << "kx compile: " << source.error().message << '\n';
        return exitCodeFor(source.error());
    }
    if (!NvrtcCompiler::available()) {
        std::cerr << "kx compile: this kx was built without NVRTC (no CUDA toolkit when it was configured)\n";
        return NoGpu;
    }
    CompileOptions compileOptions;
    compileOptions.arch = options.arch;
    compileOptions.fastMath = options.fastMath;
    compileOptions.wantPtx = !options.ptxPath.empty();
    compileOptions.timeoutSeconds = options.limits.timeoutSeconds;
    compileOptions.memoryLimitMb = options.limits.memoryLimitMb;
    CompileResult result;
    {
        const InterruptGuard interrupt;
        result = NvrtcCompiler().compile(*source, compileOptions, interrupt.stopToken());
        if (result.errorKind == ErrorKind::Cancelled || interrupt.interrupted()) {
            std::cerr << "kx compile: interrupted\n";
            return Interrupted;
        }
    }
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
        const std::string tool = Disassembler::findTool();
        if (tool.empty()) {
            notes.push_back("SASS not written: neither cuobjdump nor nvdisasm was found (searched "
                            + Disassembler::searchedPlaces() + ")");
        } else {
            Status written = Status::ok();
            if (!options.cubinPath.empty()) {
                written = Disassembler::sassToFile(options.cubinPath, options.sassPath);
            } else if (const Expected<std::string> sass = Disassembler::sass(result.cubin); !sass) {
                written = sass.error();
            } else if (!writeFile(options.sassPath, *sass)) {
                written = Error{"cannot write " + options.sassPath};
            }
            if (written) {
                notes.push_back("SASS written to " + options.sassPath + " (" + fs::path(tool).filename().string()
                                + ")");
            } else {
                std::cerr << "kx compile: SASS not written: " << written.error().message << '\n';
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
    addCompileLimitOptions(*command, options->limits);
    command->callback([&action, options] { action = [options] { return runCompile(*options); }; });
}

void addCompileLimitOptions(CLI::App &command, CompileOptions &options)
{
    command.add_option("--compile-timeout", options.timeoutSeconds, "Seconds one NVRTC compile may take (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    command
        .add_option("--compile-memory", options.memoryLimitMb, "MB of memory one NVRTC compile may use (0: no limit)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
}

} // namespace kx::cli
