#include "core/gpu/shaperig.h"

#include "core/gpu/cudaerror.h"

namespace kx {

void ShapeRig::runCandidate(int round)
{
    workspace->prepareRun(round);
    launcher.launch(workspace->bindings());
    checkCuda(cudaDeviceSynchronize(), "waiting for the candidate");
}

ShapeRigs::ShapeRigs(std::size_t count, Make make)
    : m_count(count)
    , m_make(std::move(make))
{}

ShapeRig &ShapeRigs::at(std::size_t index)
{
    if (!m_rig || m_index != index) {
        m_rig.reset();
        m_rig.emplace(m_make(index));
        m_index = index;
    }
    return *m_rig;
}

void need(const Status &status)
{
    if (!status)
        throw std::runtime_error(status.error().message);
}

} // namespace kx
