#pragma once

#include "core/plan/launchplan.h"

#include <cuda.h> // CUtensorMap and its enums only: the driver itself is reached through the runtime

#include <cstddef>
#include <map>
#include <string>
#include <utility>

namespace kx {

/**
 * A plan's tensor map encoded over a tensor's device memory by the driver's cuTensorMapEncodeTiled. The driver
 * function comes from the runtime (cudaGetDriverEntryPointByVersion), so kx links no libcuda and starts where there
 * is no driver. Throws CudaFailure with the driver's reason and the map's sizes; label names the step.
 */
CUtensorMap encodeTensorMap(const ResolvedTensorMap &map, void *address, const std::string &label);

/// The tensor maps of a plan's launches, encoded once for each address their tensor has (inputs rotate in timing).
class TensorMapCache
{
public:
    /// The map of a step's argument over address, encoded when the address is new. The pointer stays valid.
    const CUtensorMap *get(std::size_t step, std::size_t arg, const ResolvedTensorMap &map, void *address,
                           const std::string &label);

private:
    struct Encoded
    {
        void *address = nullptr;
        CUtensorMap map{};
    };
    std::map<std::pair<std::size_t, std::size_t>, Encoded> m_maps;
};

} // namespace kx
