#include "core/plan/devicecodecheck.h"

#include "core/plan/cudadeclarations.h"
#include "core/plan/includecheck.h"
#include "core/plan/nvrtccompiler.h"

#include <vector>

namespace kx {
namespace {

// A few are enough to act on; thousands would only fill logs and prompts.
constexpr std::size_t kMaxListed = 20;

std::string problemOf(const CudaDeclaration &declaration)
{
    if (declaration.kind == CudaDeclaration::Kind::Function) {
        // __host__ __device__ is fine: NVRTC only ever builds the device side. Members without any execution
        // space are device functions under NVRTC's -default-device; at namespace scope they must say so.
        const bool device = declaration.has("__global__") || declaration.has("__device__");
        const bool hostOnly = declaration.member ? declaration.has("__host__") && !device : !device;
        return hostOnly ? "host function " + declaration.name + " not allowed (mark it __device__)" : std::string();
    }
    const bool deviceMemory =
        declaration.has("__device__") || declaration.has("__constant__") || declaration.has("__shared__");
    if (declaration.has("__managed__"))
        return "managed variable " + declaration.name + " not allowed";
    // Constants are folded into device code; they never exist as host state.
    if (!deviceMemory && !declaration.constant)
        return "host variable " + declaration.name + " not allowed (use __device__ or __constant__)";
    return {};
}

} // namespace

Status checkDeviceOnly(const std::string &source, const CudaPreprocessOptions &options)
{
    // Files first: a candidate that could include one could put the API key into its compile log.
    std::vector<std::string> problems;
    if (const auto includes = checkIncludes(source); !includes)
        problems.push_back(includes.error().message);

    CudaPreprocessOptions preprocess = options;
    if (preprocess.cudaVersion.empty())
        preprocess.cudaVersion = NvrtcCompiler::version();
    const auto tokens = preprocessCuda(source, preprocess);
    const auto declarations =
        tokens ? scanDeclarations(*tokens) : Expected<std::vector<CudaDeclaration>>(tokens.error());
    if (!declarations) {
        problems.push_back(declarations.error().message);
    } else {
        std::size_t count = 0;
        for (const CudaDeclaration &declaration : *declarations) {
            const std::string problem = problemOf(declaration);
            if (problem.empty())
                continue;
            if (++count <= kMaxListed)
                problems.push_back("line " + std::to_string(declaration.line) + ": " + problem);
        }
        if (count > kMaxListed)
            problems.push_back("(and " + std::to_string(count - kMaxListed) + " more)");
    }
    if (problems.empty())
        return Status::ok();
    std::string message;
    for (const std::string &problem : problems)
        message += (message.empty() ? "" : "\n") + problem;
    return Error{message};
}

} // namespace kx
