#pragma once

#include <functional>

namespace kx::ui {

/// Runs the event loop until condition() holds or timeoutMs passes; returns whether it held.
/// For the self-test and screenshot modes, which have no QtTest to lean on.
bool waitUntil(const std::function<bool()> &condition, int timeoutMs);

} // namespace kx::ui
