#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/**
 * Where Nsight Compute's `ncu` is and how it is asked to profile. The explicit path (kx profile --ncu, else
 * $KX_NCU) wins; otherwise ncu is looked for on PATH, in the CUDA toolkit's bin folder of the build and in
 * /usr/local/cuda/bin. The Error reads "Nsight Compute (ncu) not found: ..." and says where it looked.
 */
Expected<std::string> findNcu(const std::string &explicitPath = {});

/**
 * The options before the profiled program: one pass over only the kernels inside cudaProfilerStart/Stop
 * (--profile-from-start off), at the GPU's own clocks (--clock-control none, as timing runs them), caches flushed
 * before each replay pass (--cache-control all, which the traffic rule relies on), in every process the program
 * starts, printed as one CSV row per kernel with base units (--csv --page raw --print-units base), with the
 * sections that hold DRAM traffic, throughput, occupancy, launch statistics, pipe use and warp stalls.
 */
std::vector<std::string> ncuProfileArguments();

} // namespace kx
