#pragma once

#include "core/gpu/planlauncher.h"
#include "core/gpu/shapeworkspace.h"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>

namespace kx {

/// A candidate ready to run on one shape set: its plan bound to the loaded code, and the memory it runs on.
struct ShapeRig
{
    PlanLauncher launcher;
    std::unique_ptr<ShapeWorkspace> workspace;

    /// Prepares outputs and scratch (garbage pattern `round`), launches every step and waits for the device.
    /// Throws CudaFailure or LibraryStepFailure.
    void runCandidate(int round);
};

/**
 * A candidate's rigs, one per shape set, of which one at a time is alive: the device holds the memory of
 * one shape set only (at KernelBench's sizes a few copies of one shape set's tensors fill a GPU).
 */
class ShapeRigs
{
public:
    using Make = std::function<ShapeRig(std::size_t shapeIndex)>;
    ShapeRigs(std::size_t count, Make make);

    std::size_t count() const { return m_count; }
    /// The rig of shape set `index`: the one alive, or a new one made after the one alive was freed.
    ShapeRig &at(std::size_t index);

private:
    std::size_t m_count;
    Make m_make;
    std::size_t m_index = 0;
    std::optional<ShapeRig> m_rig;
};

/// Turns a harness-side Error (LibTorch failed ...) into an exception; the evaluator decides what it means.
template <typename T>
T need(Expected<T> result)
{
    if (!result)
        throw std::runtime_error(result.error().message);
    return std::move(*result);
}
void need(const Status &status);

} // namespace kx
