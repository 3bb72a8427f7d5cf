#include "core/eval/devicecodecheck.h"

#include "core/eval/cudadeclarations.h"
#include "core/eval/cudatokenizer.h"
#include "core/eval/includecheck.h"

namespace kx {

Status checkDeviceOnly(const std::string &source)
{
    // Files first: a candidate that could include one could put the API key into its compile log.
    std::string problems;
    if (const auto includes = checkIncludes(source); !includes)
        problems = includes.error().message;
    auto report = [&problems](const CudaDeclaration &declaration, const std::string &what) {
        if (!problems.empty())
            problems += '\n';
        problems += "line " + std::to_string(declaration.line) + ": " + what;
    };

    for (const CudaDeclaration &declaration : scanDeclarations(tokenizeCuda(source))) {
        if (declaration.kind == CudaDeclaration::Kind::Function) {
            // __host__ __device__ is fine: NVRTC only ever builds the device side.
            if (!declaration.has("__global__") && !declaration.has("__device__"))
                report(declaration, "host function " + declaration.name + " not allowed (mark it __device__)");
        } else {
            const bool deviceMemory = declaration.has("__device__") || declaration.has("__constant__")
                                      || declaration.has("__shared__");
            // Constants are folded into device code; they never exist as host state.
            const bool constant = declaration.has("constexpr") || declaration.has("const");
            if (declaration.has("__managed__"))
                report(declaration, "managed variable " + declaration.name + " not allowed");
            else if (!deviceMemory && !constant)
                report(declaration, "host variable " + declaration.name
                                        + " not allowed (use __device__ or __constant__)");
        }
    }
    if (problems.empty())
        return Status::ok();
    return Error{problems};
}

} // namespace kx
