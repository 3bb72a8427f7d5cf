#pragma once

#include "core/gpu/tensormapencoder.h"
#include "core/gpu/tensorview.h"
#include "core/plan/launchplan.h"
#include "core/util/expected.h"

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace kx {

class CudaModule;

/// A library step failed without a CUDA error (bad arguments for the ATen op ...).
class LibraryStepFailure : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

/// The device memory a plan's Input, Output and Scratch arguments name.
struct PlanBindings
{
    std::map<std::string, TensorView> tensors; ///< Inputs and outputs by name.
    std::map<std::string, TensorView> scratch; ///< Scratch buffers by name, as flat float32 views.
};

/**
 * A resolved plan bound to a loaded module: kernels looked up, argument layouts checked against the
 * compiled code. launch() runs every step in order on the default stream; a step with a cluster goes through
 * cudaLaunchKernelExC with the cluster-dimension attribute, its tensor maps are encoded over the bound tensors.
 */
class PlanLauncher
{
public:
    /// Looks up each step's kernel and checks its arguments; the Error reads as a plan error.
    static Expected<PlanLauncher> prepare(const CudaModule &module, const ResolvedPlan &plan);

    /// Launches the steps. Throws CudaFailure on a launch error, LibraryStepFailure on a failed library step.
    void launch(const PlanBindings &bindings) const;

    int kernelSteps() const;

private:
    struct Arg
    {
        ResolvedArg resolved;
        std::size_t size = 0; ///< Bytes the kernel parameter takes.
    };
    struct Step
    {
        bool library = false;
        bool cudnnBenchmark = false; ///< A library step: cuDNN picks its algorithm by timing them.
        bool channelsLast = false;   ///< A library convolution: its operands passed as channels-last copies.
        std::string name;            ///< Kernel or ATen op.
        const void *kernel = nullptr;
        dim3 grid;
        dim3 block;
        std::size_t sharedBytes = 0;
        std::vector<Arg> args;
        bool hasCluster = false; ///< Launched with the cluster-dimension attribute.
        dim3 cluster;
    };

    void launchKernel(const Step &step, std::size_t index, const PlanBindings &bindings) const;
    void runLibrary(const Step &step, std::size_t index, const PlanBindings &bindings) const;

    void *tensorAddress(const Arg &arg, const std::string &label, const PlanBindings &bindings) const;

    std::vector<Step> m_steps;
    mutable TensorMapCache m_tensorMaps; ///< Encoded on the first launch with each address.
};

} // namespace kx
