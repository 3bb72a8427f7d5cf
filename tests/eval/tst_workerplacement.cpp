// Where workers run: host lists as `kx search --ssh` takes them, and the command each worker is started with
// (local, ssh, srun). The engines themselves are exercised by tests/remote.
#include "core/eval/workerplacement.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kx;

using Words = std::vector<std::string>;

TEST_CASE("host lists name the host and its CUDA devices")
{
    const auto plain = parseSshHost("gpu-box");
    REQUIRE(plain);
    CHECK(plain->host == "gpu-box");
    CHECK(plain->devices == std::vector<int>{0});
    const auto listed = parseSshHost("me@gpu-box:1,3");
    REQUIRE(listed);
    CHECK(listed->host == "me@gpu-box");
    CHECK(listed->devices == std::vector<int>{1, 3});
    for (const char *bad :
         {"", ":0", "gpu-box:", "gpu-box:a", "gpu-box:1,,2", "gpu-box:-1", "-oProxyCommand=x", "gpu box:0"}) {
        CAPTURE(bad);
        CHECK_FALSE(parseSshHost(bad));
    }
    CHECK(parseSshHost("gpu-box:x").error().message
          == "'gpu-box:x': the devices after ':' are CUDA ordinals separated by commas, e.g. 0,1");
}

TEST_CASE("local workers get their device")
{
    const auto placement = WorkerPlacement::local({"/usr/bin/kx", "worker"});
    CHECK(placement.workerCount() == 0);
    CHECK(placement.commandFor(2) == Words{"/usr/bin/kx", "worker", "--device", "2"});
    CHECK(placement.describe(2) == "device 2");
}

TEST_CASE("SSH workers are numbered across hosts, each with its remote device, quoted for the remote shell")
{
    const auto placement =
        WorkerPlacement::ssh({"ssh", "-p", "2222"}, {{"a", {0, 1}}, {"me@b", {3}}}, {"/opt/kx it's/kx", "worker"});
    CHECK(placement.workerCount() == 3);
    CHECK(placement.commandFor(0)
          == Words{"ssh", "-p", "2222", "-o", "BatchMode=yes", "-T", "a", "--",
                   "'/opt/kx it'\\''s/kx' 'worker' '--device' '0'"});
    CHECK(placement.commandFor(2).at(6) == "me@b");
    CHECK(placement.commandFor(2).back() == "'/opt/kx it'\\''s/kx' 'worker' '--device' '3'");
    CHECK(placement.describe(1) == "a, device 1");
    CHECK(placement.describe(2) == "me@b, device 3");
}

TEST_CASE("Slurm workers are job steps that ask for their GPUs and see them as device 0")
{
    SlurmRequest request;
    request.workers = 4;
    request.gpusPerWorker = 1;
    request.partition = "gpu";
    request.account = "lab";
    request.timeLimit = "2:00:00";
    const auto placement = WorkerPlacement::slurm({"srun"}, request, {"kx", "worker"});
    CHECK(placement.workerCount() == 4);
    CHECK(placement.commandFor(3)
          == Words{"srun", "--ntasks=1", "--unbuffered", "--quiet", "--job-name=kx-worker", "--gres=gpu:1",
                   "--partition=gpu", "--account=lab", "--time=2:00:00", "kx", "worker", "--device", "0"});
    request.gpusPerWorker = 0;
    request.partition.clear();
    request.account.clear();
    request.timeLimit.clear();
    CHECK(WorkerPlacement::slurm({"srun"}, request, {"kx", "worker"}).commandFor(0)
          == Words{"srun", "--ntasks=1", "--unbuffered", "--quiet", "--job-name=kx-worker", "kx", "worker", "--device",
                   "0"});
}
