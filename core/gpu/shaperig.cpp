#include "core/gpu/shaperig.h"

#include "core/gpu/cudaerror.h"

namespace kx {

void ShapeRig::runCandidate(int round)
{
    workspace->prepareRun(round);
    launcher.launch(workspace->bindings());
    checkCuda(cudaDeviceSynchronize(), "waiting for the candidate");
}

void need(const Status &status)
{
    if (!status)
        throw std::runtime_error(status.error().message);
}

} // namespace kx
