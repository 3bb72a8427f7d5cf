// The profiled child's GPU work: one launch of a candidate or of the eager reference inside a profiled range.
#include "core/profile/profilelaunch.h"

#include "core/eval/workerpool.h"
#include "core/gpu/cudaerror.h"
#include "core/gpu/cudamodule.h"
#include "core/gpu/gpudevice.h"
#include "core/gpu/planlauncher.h"
#include "core/gpu/reference.h"
#include "core/gpu/shaperig.h"
#include "core/gpu/shapeworkspace.h"
#include "core/gpu/tensorops.h"
#include "core/gpu/timingflags.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"

#include <cuda_profiler_api.h>

#include <stdexcept>

namespace kx {
namespace {

void synchronize(const char *what)
{
    checkCuda(cudaDeviceSynchronize(), what);
}

// Runs work once inside the profiled range: everything before it (inputs, warm-ups, the reference) is not
// measured, and the device is idle when the range opens and closes.
template <typename Work>
void profiledOnce(Work &&work)
{
    synchronize("waiting for the warm-ups");
    checkCuda(cudaProfilerStart(), "starting the profiled range");
    work();
    synchronize("waiting for the profiled run");
    checkCuda(cudaProfilerStop(), "ending the profiled range");
}

std::string outputCheckText(ShapeWorkspace &workspace, const Op &op, Precision precision)
{
    EvalSettings settings;
    settings.precision = precision;
    const auto tolerance = checkTolerance(op, settings, workspace.shapes());
    const auto check = need(workspace.checkOutputs(tolerance.atol, tolerance.rtol));
    return check.failure.empty() ? "the profiled run's outputs match the reference"
                                 : "the profiled run's outputs are wrong: " + check.failure;
}

void runCandidate(const ProfileLaunchRequest &request, const GpuDevice &gpu,
                  const std::shared_ptr<OpReference> &reference, ProfileLaunchResult &result)
{
    const Op &op = request.op;
    const ShapeSet &shapes = op.shapeSets.front();
    CompileOptions options;
    options.arch = archForComputeCapability(gpu.info().computeCapability);
    options.wantPtx = false;
    const CompileResult compiled = NvrtcCompiler().compile(request.candidate.source, options);
    if (!compiled.ok)
        throw std::runtime_error("NVRTC: " + compiled.error);
    const auto plan = parseLaunchPlan(request.candidate.launchPlan);
    if (!plan)
        throw std::runtime_error("launch plan: " + plan.error().message);
    const auto resolved =
        resolveLaunchPlan(*plan, op, shapes, parseKernelSignatures(request.candidate.source), gpu.limits());
    if (!resolved)
        throw std::runtime_error("launch plan: " + resolved.error().message);
    const CudaModule module(compiled.cubin);
    const PlanLauncher launcher = need(PlanLauncher::prepare(module, *resolved));
    const Tf32Scope tf32(allowsTf32(request.precision)); // for the plan's library steps

    auto workspace = need(ShapeWorkspace::create(op, shapes, *resolved, gpu.index(), reference));
    need(workspace->generateInputs(request.seed, Distribution::Normal));
    need(workspace->runReference());
    workspace->copyInputsForCandidate();
    const PlanBindings bindings = workspace->bindings();
    int round = 0;
    for (; round < request.warmupRuns; ++round) {
        workspace->prepareRun(round);
        launcher.launch(bindings);
    }
    workspace->prepareRun(round); // outputs and scratch refilled outside the range
    profiledOnce([&] { launcher.launch(bindings); });
    result.check = outputCheckText(*workspace, op, request.precision);
}

void runEager(const ProfileLaunchRequest &request, const GpuDevice &gpu, const std::shared_ptr<OpReference> &reference,
              ProfileLaunchResult &result)
{
    const Op &op = request.op;
    auto workspace = need(ShapeWorkspace::create(op, op.shapeSets.front(), ResolvedPlan{}, gpu.index(), reference));
    need(workspace->generateInputs(request.seed, Distribution::Normal));
    const Tf32Scope tf32(allowsTf32(request.precision)); // as the eager baseline runs
    const auto inputs = workspace->pristineInputs();
    for (int i = 0; i < request.warmupRuns; ++i)
        need(reference->runEager(inputs));
    profiledOnce([&] { need(reference->runEager(inputs)); });
    result.check = "eager PyTorch ran once in the profiled range";
}

} // namespace

ProfileLaunchResult runProfiledLaunch(const ProfileLaunchRequest &request, ProfileTarget target, int device)
{
    ProfileLaunchResult result;
    auto opened = GpuDevice::open(device);
    if (!opened) {
        result.error = opened.error();
        return result;
    }
    if (!TensorOps::haveTorch() || !TensorOps::haveCuda()) {
        result.error = Error::noGpu(
            TensorOps::haveTorch() ? "LibTorch " + TensorOps::torchVersion() + " cannot use the GPU (a CPU-only build?)"
                                   : "this build has no LibTorch: there is no reference to run");
        return result;
    }
    GpuDevice gpu = std::move(*opened);
    try {
        gpu.setMeasuredBandwidth(gpu.measureCopyBandwidthGBs());
    } catch (const std::exception &) {
        // The profile stands without it; only the comparison with the card's bandwidth is lost.
    }
    result.gpu = gpu.info();
    try {
        const Op &op = request.op;
        if (op.shapeSets.empty())
            throw std::runtime_error("op '" + op.name + "' defines no shape sets");
        if (!Reference::has(op))
            throw std::runtime_error("no LibTorch reference for op '" + op.name + "'");
        const auto reference = need(Reference::forOp(op, gpu.index()));
        if (target == ProfileTarget::Candidate)
            runCandidate(request, gpu, reference, result);
        else
            runEager(request, gpu, reference, result);
    } catch (const std::exception &error) {
        result.error = Error{error.what()};
    }
    return result;
}

} // namespace kx
