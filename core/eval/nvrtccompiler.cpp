#include "core/eval/nvrtccompiler.h"

#include "core/eval/compilelog.h"
#include "core/eval/devicecodecheck.h"
#include "core/eval/includecheck.h"
#include "core/eval/ptxasreport.h"
#include "core/eval/toolkitheaders.h"

#include <chrono>
#include <regex>
#include <set>
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

// Options that would let NVRTC read files: include paths and pre-included files. Candidates get headers from
// memory only, whoever sets the options.
std::string fileReadingOption(const std::vector<std::string> &options)
{
    for (const std::string &option : options)
        for (const char *prefix : {"-I", "--include-path", "-include", "--pre-include", "-isystem"})
            if (option.rfind(prefix, 0) == 0)
                return option;
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
    // The one place where candidate code meets NVRTC: every #include is checked, and the allowed headers come
    // from memory (the search, kx compile, the GUI's check and its PTX/SASS view all compile here).
    if (const Status deviceOnly = checkDeviceOnly(source); !deviceOnly)
        return failed(std::move(result), deviceOnly.error().message);
    const Expected<std::vector<std::string>> includes = checkIncludes(source);
    if (!includes)
        return failed(std::move(result), includes.error().message);
    if (const std::string option = fileReadingOption(options.extraOptions); !option.empty())
        return failed(std::move(result), "the NVRTC option " + option
                                             + " is not allowed: candidates are compiled without include paths");
    const auto headers = ToolkitHeaders::forIncludes(*includes);
    if (!headers)
        return failed(std::move(result), headers.error().message);
    // A real architecture: the worker loads the cubin, and ptxas' report needs one.
    static const std::regex archPattern("sm_[0-9]{2,3}[af]?");
    if (!std::regex_match(options.arch, archPattern))
        return failed(std::move(result), "unsupported architecture '" + options.arch
                                             + "' (expected a real GPU architecture such as sm_80 or sm_90)");

    std::vector<const char *> headerTexts;
    std::vector<const char *> headerNames;
    std::set<std::string> knownFiles{"candidate.cu"};
    for (const InMemoryHeader *header : *headers) {
        headerTexts.push_back(header->text.c_str());
        headerNames.push_back(header->name.c_str());
        knownFiles.insert(header->name);
    }
    Program program;
    nvrtcResult status = nvrtcCreateProgram(program.address(), source.c_str(), "candidate.cu", int(headerTexts.size()),
                                            headerTexts.data(), headerNames.data());
    if (status != NVRTC_SUCCESS)
        return failed(std::move(result), std::string("NVRTC could not create a program: ") + nvrtcGetErrorString(status));

    // No include path, and not the current folder either (NVRTC's default for quoted names): the headers above
    // are all there is. Absolute paths NVRTC would still open; checkIncludes() keeps them out.
    std::vector<std::string> arguments = {"--gpu-architecture=" + options.arch, "-std=c++17", "-default-device",
                                          "--ptxas-options=-v", "--no-source-include"};
    if (options.fastMath)
        arguments.push_back("--use_fast_math");
    arguments.insert(arguments.end(), options.extraOptions.begin(), options.extraOptions.end());
    std::vector<const char *> argv;
    for (const std::string &argument : arguments)
        argv.push_back(argument.c_str());

    const auto start = std::chrono::steady_clock::now();
    status = nvrtcCompileProgram(program.get(), int(argv.size()), argv.data());
    result.stats.compileMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // The figures come from the whole report; what is kept, shown, stored and put into prompts is scrubbed.
    const std::string log = programLog(program.get());
    const std::vector<PtxasFunction> report = parsePtxasReport(log);
    result.stats.log = scrubCompileLog(log, [&knownFiles](std::string_view file) {
        return knownFiles.contains(std::string(file));
    });

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
    applyPtxasReport(report, result.stats);
    result.ok = true;
    return result;
#endif
}

} // namespace kx
