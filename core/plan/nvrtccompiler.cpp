#include "core/plan/nvrtccompiler.h"

#include "core/plan/compilelog.h"
#include "core/plan/devicecodecheck.h"
#include "core/plan/includecheck.h"
#include "core/plan/nvrtcprocess.h"
#include "core/plan/ptxasreport.h"
#include "core/plan/toolkitheaders.h"

#include <algorithm>
#include <cctype>
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

std::string archForComputeCapability(const std::string &computeCapability)
{
    const auto dot = computeCapability.find('.');
    if (dot == std::string::npos || dot == 0 || dot + 1 >= computeCapability.size())
        return {};
    const std::string major = computeCapability.substr(0, dot);
    const std::string minor = computeCapability.substr(dot + 1);
    const auto digits = [](const std::string &text) {
        return std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
    };
    if (!digits(major) || !digits(minor))
        return {};
    return "sm_" + major + minor + (major == "9" && minor == "0" ? "a" : "");
}

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

CompileResult NvrtcCompiler::compile(const std::string &source, const CompileOptions &options,
                                     std::stop_token stop) const
{
    CompileResult result;
    result.kernels = parseKernelSignatures(source);
#if !KX_HAVE_CUDA
    (void)options;
    (void)stop;
    return failed(std::move(result), "this build has no NVRTC (the CUDA toolkit was not found when it was configured)");
#else
    // The one place where candidate code meets NVRTC: every #include is checked, and the allowed headers come
    // from memory (the search, kx compile, the GUI's check and its PTX/SASS view all compile here).
    const CudaPreprocessOptions preprocess{options.arch, version(), options.fastMath};
    if (const Status deviceOnly = checkDeviceOnly(source, preprocess); !deviceOnly)
        return failed(std::move(result), deviceOnly.error().message);
    const Expected<std::vector<std::string>> includes = checkIncludes(source);
    if (!includes)
        return failed(std::move(result), includes.error().message);
    if (const std::string option = fileReadingOption(options.extraOptions); !option.empty())
        return failed(std::move(result),
                      "the NVRTC option " + option + " is not allowed: candidates are compiled without include paths");
    const auto headers = ToolkitHeaders::forIncludes(*includes);
    if (!headers)
        return failed(std::move(result), headers.error().message);
    // A real architecture: the worker loads the cubin, and ptxas' report needs one.
    static const std::regex archPattern("sm_[0-9]{2,3}[af]?");
    if (!std::regex_match(options.arch, archPattern))
        return failed(std::move(result), "unsupported architecture '" + options.arch
                                             + "' (expected a real GPU architecture such as sm_80 or sm_90)");

    NvrtcJob job;
    job.source = source;
    std::set<std::string> knownFiles{"candidate.cu"};
    for (const InMemoryHeader *header : *headers) {
        job.headers.emplace_back(header->name, header->text);
        knownFiles.insert(header->name);
    }
    // No include path, and not the current folder either (NVRTC's default for quoted names): the headers above
    // are all there is. Absolute paths NVRTC would still open; checkIncludes() keeps them out.
    job.arguments = {"--gpu-architecture=" + options.arch, "-std=c++17", "-default-device", "--ptxas-options=-v",
                     "--no-source-include"};
    if (options.fastMath)
        job.arguments.push_back("--use_fast_math");
    if (options.lineInfo)
        job.arguments.push_back("--generate-line-info");
    job.arguments.insert(job.arguments.end(), options.extraOptions.begin(), options.extraOptions.end());
    job.wantPtx = options.wantPtx;
    job.timeoutSeconds = options.timeoutSeconds;
    job.memoryLimitMb = options.memoryLimitMb;

    const NvrtcRun run = runNvrtcJob(job, stop);
    if (run.outcome != NvrtcRun::Outcome::Done) {
        if (run.outcome == NvrtcRun::Outcome::Cancelled)
            result.errorKind = ErrorKind::Cancelled;
        return failed(std::move(result), run.error);
    }
    const NvrtcOutput &output = run.output;
    result.stats.compileMs = output.compileMs;
    // The figures come from the whole report; what is kept, shown, stored and put into prompts is scrubbed.
    const std::vector<PtxasFunction> report = parsePtxasReport(output.log);
    result.stats.log = scrubCompileLog(
        output.log, [&knownFiles](std::string_view file) { return knownFiles.contains(std::string(file)); });
    if (output.status < 0)
        return failed(std::move(result), "NVRTC could not create a program: " + output.statusText);
    if (output.statusText == "NVRTC_ERROR_OUT_OF_MEMORY" && options.memoryLimitMb > 0)
        return failed(std::move(result),
                      "the compile took more than " + std::to_string(options.memoryLimitMb) + " MB of memory");
    if (output.status != 0) {
        std::string reason = firstError(result.stats.log);
        if (reason.empty())
            reason = "NVRTC: " + output.statusText;
        return failed(std::move(result), reason);
    }
    result.cubin = output.cubin;
    if (result.cubin.empty())
        return failed(std::move(result), "NVRTC produced no cubin for " + options.arch);
    result.ptx = output.ptx;
    applyPtxasReport(report, result.stats);
    result.ok = true;
    return result;
#endif
}

} // namespace kx
