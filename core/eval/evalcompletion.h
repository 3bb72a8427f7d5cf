#pragma once

// Completion callbacks of the worker pool and the evaluation service: running them, and futures built on them.
#include "core/domain/evaluation.h"
#include "core/util/expected.h"

#include <functional>
#include <future>
#include <memory>
#include <utility>

namespace kx {

/**
 * Runs @p call, the call of a completion callback, so that an exception it throws is reported on stderr instead
 * of ending the thread that completes (and with it the process).
 */
void runCompletion(const std::function<void()> &call);

/**
 * Calls @p submit with a completion callback and returns the future that callback fulfils: the future-returning
 * submit() of the worker pool and of the evaluation service, built on their callback form. @p submit must see
 * to it that the callback is called exactly once.
 */
template <typename Submit>
std::future<Expected<Evaluation>> futureOf(Submit &&submit)
{
    // Shared: the callback may be copied (std::function) and runs on another thread.
    auto promise = std::make_shared<std::promise<Expected<Evaluation>>>();
    auto future = promise->get_future();
    std::forward<Submit>(submit)([promise](Expected<Evaluation> result) { promise->set_value(std::move(result)); });
    return future;
}

} // namespace kx
