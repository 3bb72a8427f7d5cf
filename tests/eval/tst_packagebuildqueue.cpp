// The Inductor package builds that kx coverage searches between: batch by batch as the searches ask for them,
// several at once within a batch, none while the caller searches, and a build that ran out of memory again alone.
#include "core/baseline/packagebuildqueue.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

using namespace kx;

namespace {

// Builds that record their order, how many ran at once, and which ran beside a retry.
struct RecordedBuilds
{
    std::mutex mutex;
    std::vector<std::size_t> started;
    int running = 0;
    int mostAtOnce = 0;
    bool retryHadCompany = false;
    std::set<std::size_t> outOfMemoryOnce;

    InductorPreparation build(std::size_t index)
    {
        bool retry = false;
        {
            std::lock_guard lock(mutex);
            retry = std::find(started.begin(), started.end(), index) != started.end();
            started.push_back(index);
            mostAtOnce = std::max(mostAtOnce, ++running);
            retryHadCompany = retryHadCompany || (retry && running > 1);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(30)); // long enough for the others to start
        std::lock_guard lock(mutex);
        --running;
        InductorPreparation result;
        result.outOfMemory = !retry && outOfMemoryOnce.count(index) > 0;
        result.settings.details = "build " + std::to_string(index) + (retry ? " alone" : "");
        return result;
    }
};

std::vector<std::size_t> sorted(std::vector<std::size_t> values)
{
    std::sort(values.begin(), values.end());
    return values;
}

} // namespace

TEST_CASE("nothing is built before it is asked for, then a batch of jobs builds at once")
{
    RecordedBuilds builds;
    PackageBuildQueue queue(7, 3, [&](std::size_t i) { return builds.build(i); });
    CHECK(builds.started.empty());
    CHECK(queue.waitFor(0).settings.details == "build 0");
    CHECK(sorted(builds.started) == std::vector<std::size_t>{0, 1, 2});
    CHECK(builds.mostAtOnce == 3);
    CHECK(builds.running == 0); // nothing runs beside the caller's search
    CHECK(queue.waitFor(1).settings.details == "build 1");
    CHECK(queue.waitFor(2).settings.details == "build 2");
    CHECK(builds.started.size() == 3); // built once
    CHECK(queue.waitFor(3).settings.details == "build 3");
    CHECK(sorted(builds.started) == std::vector<std::size_t>{0, 1, 2, 3, 4, 5});
    CHECK(queue.waitFor(6).settings.details == "build 6"); // the last batch is shorter
    CHECK(builds.started.size() == 7);
    CHECK(queue.waitFor(7).settings.details.empty()); // past the list: nothing to build
}

TEST_CASE("asking out of order builds from there, skipping what is built")
{
    RecordedBuilds builds;
    PackageBuildQueue queue(6, 2, [&](std::size_t i) { return builds.build(i); });
    CHECK(queue.waitFor(3).settings.details == "build 3");
    CHECK(sorted(builds.started) == std::vector<std::size_t>{3, 4});
    CHECK(queue.waitFor(2).settings.details == "build 2");
    CHECK(sorted(builds.started) == std::vector<std::size_t>{2, 3, 4, 5});
}

TEST_CASE("a build that ran out of memory is built again alone after its batch")
{
    RecordedBuilds builds;
    builds.outOfMemoryOnce = {1};
    PackageBuildQueue queue(4, 4, [&](std::size_t i) { return builds.build(i); });
    CHECK(queue.waitFor(0).settings.details == "build 0");
    CHECK(builds.started.size() == 5);
    CHECK(builds.started.back() == 1);
    CHECK_FALSE(builds.retryHadCompany);
    CHECK(queue.waitFor(1).settings.details == "build 1 alone");
    CHECK_FALSE(queue.waitFor(1).outOfMemory);
}
