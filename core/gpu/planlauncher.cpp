#include "core/gpu/planlauncher.h"

#include "core/gpu/cudaerror.h"
#include "core/gpu/cudamodule.h"
#include "core/gpu/tensorops.h"

#include <cstring>
#include <limits>

namespace kx {
namespace {

constexpr std::size_t kDefaultSharedLimit = 48 * 1024;
// Larger clusters (up to 16 blocks on Hopper) need the kernel's opt-in.
constexpr unsigned kPortableClusterBlocks = 8;

const char *kindText(PlanArg::Kind kind)
{
    switch (kind) {
    case PlanArg::Kind::Input: return "input";
    case PlanArg::Kind::Output: return "output";
    case PlanArg::Kind::Scratch: return "scratch";
    case PlanArg::Kind::Int: return "int";
    case PlanArg::Kind::Float: return "float";
    case PlanArg::Kind::Ints: return "ints";
    case PlanArg::Kind::Bool: return "bool";
    case PlanArg::Kind::None: return "none";
    case PlanArg::Kind::String: return "string";
    case PlanArg::Kind::TensorMap: return "tensorMap";
    }
    return "?";
}

dim3 toDim3(const std::array<std::int64_t, 3> &v)
{
    return dim3(unsigned(v[0]), unsigned(v[1]), unsigned(v[2]));
}

std::string stepLabel(std::size_t index, const std::string &name)
{
    return "step " + std::to_string(index) + " (" + name + ")";
}

} // namespace

Expected<PlanLauncher> PlanLauncher::prepare(const CudaModule &module, const ResolvedPlan &plan)
{
    PlanLauncher launcher;
    for (std::size_t index = 0; index < plan.steps.size(); ++index) {
        Step step;
        if (const auto *library = std::get_if<ResolvedLibraryStep>(&plan.steps[index])) {
            step.library = true;
            step.cudnnBenchmark = library->cudnnBenchmark;
            step.channelsLast = library->channelsLast;
            step.name = library->op;
            for (const auto &arg : library->args)
                step.args.push_back({arg, 0});
            launcher.m_steps.push_back(std::move(step));
            continue;
        }
        const auto &kernelStep = std::get<ResolvedKernelStep>(plan.steps[index]);
        step.name = kernelStep.kernel;
        step.kernel = module.kernel(kernelStep.kernel);
        const auto label = stepLabel(index, step.name);
        if (!step.kernel)
            return Error{label + ": the compiled code has no extern \"C\" __global__ function of that name"};
        const auto sizes = CudaModule::parameterSizes(step.kernel);
        if (sizes.size() != kernelStep.args.size())
            return Error{label + ": the kernel takes " + std::to_string(sizes.size()) + " parameters, the plan passes "
                         + std::to_string(kernelStep.args.size())};
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            const auto &arg = kernelStep.args[i];
            const auto where = label + ", argument " + std::to_string(i) + " (" + kindText(arg.kind) + "): ";
            switch (arg.kind) {
            case PlanArg::Kind::Input:
            case PlanArg::Kind::Output:
            case PlanArg::Kind::Scratch:
                if (sizes[i] != sizeof(void *))
                    return Error{where + "the kernel parameter is not a pointer (" + std::to_string(sizes[i])
                                 + " bytes)"};
                break;
            case PlanArg::Kind::Int:
                if (sizes[i] != 4 && sizes[i] != 8)
                    return Error{where + "the kernel parameter takes " + std::to_string(sizes[i]) + " bytes"};
                if (sizes[i] == 4
                    && (arg.intValue > std::numeric_limits<std::int32_t>::max()
                        || arg.intValue < std::numeric_limits<std::int32_t>::min()))
                    return Error{where + "value " + std::to_string(arg.intValue)
                                 + " does not fit the kernel's 32-bit parameter"};
                break;
            case PlanArg::Kind::Float:
                if (sizes[i] != 4 && sizes[i] != 8)
                    return Error{where + "the kernel parameter takes " + std::to_string(sizes[i]) + " bytes"};
                break;
            case PlanArg::Kind::TensorMap:
                if (sizes[i] != sizeof(CUtensorMap))
                    return Error{where + "the kernel parameter takes " + std::to_string(sizes[i])
                                 + " bytes, a CUtensorMap " + std::to_string(sizeof(CUtensorMap))};
                break;
            default: return Error{where + "only library steps take this kind of argument"};
            }
            step.args.push_back({arg, sizes[i]});
        }
        step.grid = toDim3(kernelStep.grid);
        step.block = toDim3(kernelStep.block);
        step.sharedBytes = std::size_t(kernelStep.sharedBytes);
        step.hasCluster = kernelStep.hasCluster;
        step.cluster = toDim3(kernelStep.cluster);
        launcher.m_steps.push_back(std::move(step));
    }
    return launcher;
}

int PlanLauncher::kernelSteps() const
{
    int count = 0;
    for (const auto &step : m_steps)
        count += step.library ? 0 : 1;
    return count;
}

void PlanLauncher::launch(const PlanBindings &bindings) const
{
    for (std::size_t index = 0; index < m_steps.size(); ++index) {
        if (m_steps[index].library)
            runLibrary(m_steps[index], index, bindings);
        else
            launchKernel(m_steps[index], index, bindings);
    }
}

void *PlanLauncher::tensorAddress(const Arg &arg, const std::string &label, const PlanBindings &bindings) const
{
    const bool scratch = arg.resolved.kind == PlanArg::Kind::Scratch
                         || (arg.resolved.kind == PlanArg::Kind::TensorMap
                             && arg.resolved.tensorMap.tensorKind == PlanArg::Kind::Scratch);
    const auto &views = scratch ? bindings.scratch : bindings.tensors;
    const auto it = views.find(arg.resolved.name);
    if (it == views.end())
        throw CudaFailure(cudaErrorInvalidValue,
                          label + ": no " + (scratch ? "scratch buffer '" : "tensor '") + arg.resolved.name + "'");
    return it->second.data;
}

void PlanLauncher::launchKernel(const Step &step, std::size_t index, const PlanBindings &bindings) const
{
    const auto label = stepLabel(index, step.name);
    // One 8-byte slot per parameter; 4-byte parameters use the slot's first bytes (little-endian).
    std::vector<std::uint64_t> storage(step.args.size(), 0);
    std::vector<void *> pointers(step.args.size(), nullptr);
    for (std::size_t i = 0; i < step.args.size(); ++i) {
        const auto &arg = step.args[i];
        void *slot = &storage[i];
        switch (arg.resolved.kind) {
        case PlanArg::Kind::Input:
        case PlanArg::Kind::Output:
        case PlanArg::Kind::Scratch: {
            void *address = tensorAddress(arg, label, bindings);
            std::memcpy(slot, &address, sizeof(void *));
            break;
        }
        case PlanArg::Kind::TensorMap: // The launch copies the 128 bytes the parameter points to.
            pointers[i] = const_cast<CUtensorMap *>(
                m_tensorMaps.get(index, i, arg.resolved.tensorMap, tensorAddress(arg, label, bindings), label));
            continue;
        case PlanArg::Kind::Int:
            if (arg.size == 4) {
                const auto value = std::int32_t(arg.resolved.intValue);
                std::memcpy(slot, &value, sizeof value);
            } else {
                std::memcpy(slot, &arg.resolved.intValue, sizeof(std::int64_t));
            }
            break;
        case PlanArg::Kind::Float:
            if (arg.size == 4) {
                const auto value = float(arg.resolved.floatValue);
                std::memcpy(slot, &value, sizeof value);
            } else {
                std::memcpy(slot, &arg.resolved.floatValue, sizeof(double));
            }
            break;
        default: break; // prepare() admits no other kinds for kernels
        }
        pointers[i] = slot;
    }
    if (step.sharedBytes > kDefaultSharedLimit)
        checkCuda(cudaFuncSetAttribute(step.kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(step.sharedBytes)),
                  label + ": allowing " + std::to_string(step.sharedBytes) + " bytes of dynamic shared memory");
    if (step.hasCluster) {
        if (step.cluster.x * step.cluster.y * step.cluster.z > kPortableClusterBlocks)
            checkCuda(cudaFuncSetAttribute(step.kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1),
                      label + ": allowing a cluster of more than " + std::to_string(kPortableClusterBlocks)
                          + " blocks");
        cudaLaunchAttribute cluster{};
        cluster.id = cudaLaunchAttributeClusterDimension;
        cluster.val.clusterDim.x = step.cluster.x;
        cluster.val.clusterDim.y = step.cluster.y;
        cluster.val.clusterDim.z = step.cluster.z;
        cudaLaunchConfig_t config{};
        config.gridDim = step.grid;
        config.blockDim = step.block;
        config.dynamicSmemBytes = step.sharedBytes;
        config.stream = nullptr;
        config.attrs = &cluster;
        config.numAttrs = 1;
        checkCuda(cudaLaunchKernelExC(&config, step.kernel, pointers.data()),
                  label + ": launch in clusters of " + std::to_string(step.cluster.x) + "x"
                      + std::to_string(step.cluster.y) + "x" + std::to_string(step.cluster.z) + " blocks");
    } else {
        checkCuda(cudaLaunchKernel(step.kernel, step.grid, step.block, pointers.data(), step.sharedBytes, nullptr),
                  label + ": launch");
    }
    checkCuda(cudaPeekAtLastError(), label + ": after launch");
}

void PlanLauncher::runLibrary(const Step &step, std::size_t index, const PlanBindings &bindings) const
{
    std::vector<ResolvedArg> args;
    std::vector<TensorView> views;
    for (const auto &arg : step.args) {
        args.push_back(arg.resolved);
        TensorView view;
        if (arg.resolved.kind == PlanArg::Kind::Input || arg.resolved.kind == PlanArg::Kind::Output) {
            if (const auto it = bindings.tensors.find(arg.resolved.name); it != bindings.tensors.end())
                view = it->second;
        } else if (arg.resolved.kind == PlanArg::Kind::Scratch) {
            if (const auto it = bindings.scratch.find(arg.resolved.name); it != bindings.scratch.end())
                view = it->second;
        }
        if (arg.resolved.hasShape) {
            // The shape the plan gives the tensor for this call; it must fit the memory behind it.
            TensorView shaped = view;
            shaped.shape = arg.resolved.ints;
            if (shaped.byteCount() > view.byteCount())
                throw LibraryStepFailure(stepLabel(index, step.name) + ": '" + arg.resolved.name
                                         + "' is too small for the shape " + shapeText(shaped.shape));
            view = shaped;
        }
        views.push_back(view);
    }
    const auto status = TensorOps::runLibraryStep(step.name, args, views, step.cudnnBenchmark, step.channelsLast);
    checkCuda(cudaPeekAtLastError(), stepLabel(index, step.name) + ": after the library call");
    if (!status)
        throw LibraryStepFailure(stepLabel(index, step.name) + ": " + status.error().message);
}

} // namespace kx
