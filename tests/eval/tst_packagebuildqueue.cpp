// The background queue of Inductor package builds that kx coverage searches behind: builds run in list order on
// several threads, a caller waits for one build only, and a build that ran out of memory is tried again alone.
#include "core/baseline/packagebuildqueue.h"

#include <doctest/doctest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <vector>

using namespace kx;
using namespace std::chrono_literals;

namespace {

// Builds that finish only when the test releases them, and record who ran beside whom.
struct HeldBuilds
{
    std::mutex mutex;
    std::condition_variable changed;
    std::set<std::size_t> released;
    std::vector<std::size_t> started;
    int running = 0;
    int mostAtOnce = 0;
    std::set<std::size_t> runningBesideRetry; ///< Builds under way while a retry ran.
    std::set<std::size_t> outOfMemoryOnce;
    std::vector<std::size_t> retried;

    InductorPreparation build(std::size_t index)
    {
        std::unique_lock lock(mutex);
        const bool retry = std::find(started.begin(), started.end(), index) != started.end();
        started.push_back(index);
        ++running;
        mostAtOnce = std::max(mostAtOnce, running);
        if (retry) {
            retried.push_back(index);
            if (running > 1)
                runningBesideRetry.insert(index);
        }
        changed.notify_all();
        changed.wait(lock, [&] { return retry || released.count(index) > 0; });
        --running;
        InductorPreparation result;
        result.outOfMemory = !retry && outOfMemoryOnce.count(index) > 0;
        result.settings.details = "build " + std::to_string(index) + (retry ? " alone" : "");
        return result;
    }

    void release(std::size_t index)
    {
        std::lock_guard lock(mutex);
        released.insert(index);
        changed.notify_all();
    }

    bool waitStarted(std::size_t count)
    {
        std::unique_lock lock(mutex);
        return changed.wait_for(lock, 10s, [&] { return started.size() >= count; });
    }
};

} // namespace

TEST_CASE("the first build's result is there while later builds still run, in list order")
{
    HeldBuilds builds;
    PackageBuildQueue queue(5, 2, [&](std::size_t i) { return builds.build(i); });
    REQUIRE(builds.waitStarted(2));
    {
        std::lock_guard lock(builds.mutex);
        CHECK(builds.started == std::vector<std::size_t>{0, 1}); // two threads: 0 and 1 first
    }
    builds.release(0);
    CHECK(queue.waitFor(0).settings.details == "build 0");
    REQUIRE(builds.waitStarted(3));
    {
        std::lock_guard lock(builds.mutex);
        CHECK(builds.started.back() == 2);
        CHECK(builds.running == 2); // 1 and 2 are still building: the caller did not wait for them
    }
    for (std::size_t i = 1; i < 5; ++i)
        builds.release(i);
    for (std::size_t i = 1; i < 5; ++i)
        CHECK(queue.waitFor(i).settings.details == "build " + std::to_string(i));
    CHECK(builds.mostAtOnce == 2);
    CHECK(queue.waitFor(7).settings.details.empty()); // not in the list: nothing to wait for
}

TEST_CASE("a build that ran out of memory is built again alone, and the rest go on afterwards")
{
    HeldBuilds builds;
    builds.outOfMemoryOnce = {1};
    PackageBuildQueue queue(4, 3, [&](std::size_t i) { return builds.build(i); });
    REQUIRE(builds.waitStarted(3));
    builds.release(0);
    builds.release(1);
    CHECK(queue.waitFor(0).settings.details == "build 0");
    // 2 (and 3, which starts when 0 ends) are still building: the retry of 1 waits for them, and nothing new starts.
    std::atomic<bool> done = false;
    std::jthread waiter([&] {
        CHECK(queue.waitFor(1).settings.details == "build 1 alone");
        done = true;
    });
    std::this_thread::sleep_for(100ms);
    CHECK_FALSE(done.load());
    builds.release(2);
    builds.release(3);
    waiter.join();
    CHECK(done.load());
    std::lock_guard lock(builds.mutex);
    CHECK(builds.retried == std::vector<std::size_t>{1});
    CHECK(builds.runningBesideRetry.empty());
    CHECK(builds.started.size() == 5);
}

TEST_CASE("leaving early drops the builds not started")
{
    HeldBuilds builds;
    for (std::size_t i = 0; i < 50; ++i)
        builds.release(i);
    {
        PackageBuildQueue queue(50, 1, [&](std::size_t i) {
            auto result = builds.build(i);
            std::this_thread::sleep_for(20ms);
            return result;
        });
        CHECK(queue.waitFor(0).settings.details == "build 0");
    } // Destroyed while build 1 runs: the rest never start.
    std::lock_guard lock(builds.mutex);
    CHECK(builds.started.size() < 10);
}
