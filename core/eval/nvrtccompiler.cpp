#include "core/eval/nvrtccompiler.h"

#include "core/eval/devicecodecheck.h"
#include "core/eval/ptxasreport.h"

#include <chrono>
#include <filesystem>
#include <regex>
#include <sstream>

#if KX_HAVE_CUDA
#include <nvrtc.h>
#endif

namespace kx {
namespace {

CompileResult failed(CompileResult result, const std::string &reason)
{
    result.ok = false;
    result.error = reason;
    if (result.stats.log.empty())
        result.stats.log = reason;
    return result;
}

#if KX_HAVE_CUDA

// The first diagnostic that is an error, e.g. "candidate.cu(4): error: expected a \";\"".
std::string firstError(const std::string &log)
{
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find("error") != std::string::npos)
            return line;
    }
    return {};
}

// Destroys the program on every return path.
class Program
{
public:
    ~Program()
    {
        if (m_program)
            nvrtcDestroyProgram(&m_program);
    }
    nvrtcProgram *address() { return &m_program; }
    nvrtcProgram get() const { return m_program; }

private:
    nvrtcProgram m_program = nullptr;
};

std::string programLog(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string log(size, '\0');
    nvrtcGetProgramLog(program, log.data());
    log.resize(log.find_last_not_of(std::string("\0\n", 2)) + 1);
    return log;
}

std::string cubinOf(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetCUBINSize(program, &size) != NVRTC_SUCCESS || size == 0)
        return {};
    std::string cubin(size, '\0');
    if (nvrtcGetCUBIN(program, cubin.data()) != NVRTC_SUCCESS)
        return {};
    return cubin;
}

std::string ptxOf(nvrtcProgram program)
{
    std::size_t size = 0;
    if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1)
        return {};
    std::string ptx(size, '\0');
    if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS)
        return {};
    ptx.resize(size - 1);   // The size counts the terminating NUL.
    return ptx;
}

// NVRTC 13 has no built-in copies of cuda_fp16.h and friends: point it at the toolkit's own headers
// (device-side headers only are usable; the candidate still may not contain host code).
std::string toolkitIncludeDir()
{
#ifdef KX_CUDA_INCLUDE_DIR
    std::error_code error;
    if (std::filesystem::exists(std::filesystem::path(KX_CUDA_INCLUDE_DIR) / "cuda_fp16.h", error))
        return KX_CUDA_INCLUDE_DIR;
#endif
    return {};
}

#endif // KX_HAVE_CUDA

} // namespace

bool NvrtcCompiler::available()
{
#if KX_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

std::string NvrtcCompiler::version()
{
#if KX_HAVE_CUDA
    int major = 0;
    int minor = 0;
    if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
        return std::to_string(major) + "." + std::to_string(minor);
#endif
    return {};
}

CompileResult NvrtcCompiler::compile(const std::string &source, const CompileOptions &options) const
{
    CompileResult result;
    result.kernels = parseKernelSignatures(source);
#if !KX_HAVE_CUDA
    (void)options;
    return failed(std::move(result), "this build has no NVRTC (the CUDA toolkit was not found when it was configured)");
#else
    if (const Status deviceOnly = checkDeviceOnly(source); !deviceOnly)
        return failed(std::move(result), deviceOnly.error().message);
    // A real architecture: the worker loads the cubin, and ptxas' report needs one.
    static const std::regex archPattern("sm_[0-9]{2,3}[af]?");
    if (!std::regex_match(options.arch, archPattern))
        return failed(std::move(result), "unsupported architecture '" + options.arch
                                             + "' (expected a real GPU architecture such as sm_80 or sm_90)");

    Program program;
    nvrtcResult status = nvrtcCreateProgram(program.address(), source.c_str(), "candidate.cu", 0, nullptr, nullptr);
    if (status != NVRTC_SUCCESS)
        return failed(std::move(result), std::string("NVRTC could not create a program: ") + nvrtcGetErrorString(status));

    std::vector<std::string> arguments = {"--gpu-architecture=" + options.arch, "-std=c++17", "-default-device",
                                          "--ptxas-options=-v"};
    if (options.fastMath)
        arguments.push_back("--use_fast_math");
    if (const std::string include = toolkitIncludeDir(); !include.empty())
        arguments.push_back("--include-path=" + include);
    arguments.insert(arguments.end(), options.extraOptions.begin(), options.extraOptions.end());
    std::vector<const char *> argv;
    for (const std::string &argument : arguments)
        argv.push_back(argument.c_str());

    const auto start = std::chrono::steady_clock::now();
    status = nvrtcCompileProgram(program.get(), int(argv.size()), argv.data());
    result.stats.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    result.stats.log = programLog(program.get());

    if (status != NVRTC_SUCCESS) {
        std::string reason = firstError(result.stats.log);
        if (reason.empty())
            reason = std::string("NVRTC: ") + nvrtcGetErrorString(status);
        return failed(std::move(result), reason);
    }
    result.cubin = cubinOf(program.get());
    if (result.cubin.empty())
        return failed(std::move(result), "NVRTC produced no cubin for " + options.arch);
    if (options.wantPtx)
        result.ptx = ptxOf(program.get());
    applyPtxasReport(parsePtxasReport(result.stats.log), result.stats);
    result.ok = true;
    return result;
#endif
}

} // namespace kx
