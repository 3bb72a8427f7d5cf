#pragma once

#include "core/gpu/planlauncher.h"
#include "core/gpu/shapeworkspace.h"

#include <memory>

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

/// Turns a harness-side Error (LibTorch failed ...) into an exception; the evaluator decides what it means.
template<typename T>
T need(Expected<T> result)
{
    if (!result)
        throw std::runtime_error(result.error().message);
    return std::move(*result);
}
void need(const Status &status);

} // namespace kx
