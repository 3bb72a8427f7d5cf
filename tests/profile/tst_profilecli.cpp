// kx profile end to end with a fake ncu (tests/data/ncu/fake-ncu.sh) that answers without starting the profiled
// child, so the whole command path runs on machines without a GPU or Nsight Compute.
#include "app/kx/exitcodes.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <sys/stat.h>

namespace {

using kx::test::TemporaryDir;

const std::string kFakeNcu = KX_TEST_DATA_DIR "/ncu/fake-ncu.sh";
const std::string kSample = KX_TEST_DATA_DIR "/sample-archive.json";
// A relu kernel of the sample archive: 256 MiB of input, 512 MiB the model says it must move.
const std::string kRelu = "adf9f184100b";

struct Result
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

Result runKx(const std::vector<std::string> &arguments, const kx::test::ChildProcess::Environment &environment = {})
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto result = kx::test::runProgram(argv, environment, std::chrono::seconds(120));
    REQUIRE_FALSE(result.timedOut);
    return {result.exitCode, result.out, result.err};
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::string sampleArchive(const TemporaryDir &dir)
{
    const std::string path = dir.filePath("a.kxdb");
    const auto imported = runKx({"archive", "import", "-a", path, kSample});
    REQUIRE_MESSAGE(imported.exitCode == 0, imported.err);
    return path;
}

nlohmann::json storedProfiles(const std::string &archive)
{
    const auto shown = runKx({"archive", "show", "-a", archive, "--json", kRelu});
    REQUIRE(shown.exitCode == 0);
    return nlohmann::json::parse(shown.out).at("profiles");
}

} // namespace

TEST_CASE("kx profile stores the candidate's and the eager reference's metrics beside the model's bytes")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const std::string argsLog = dir.filePath("ncu-args.txt");
    const auto profiled = runKx({"profile", kRelu, "-a", archive, "--gpu", "1", "--ncu", kFakeNcu},
                                {{"FAKE_NCU_MODE", "ok"}, {"FAKE_NCU_ARGS", argsLog}});
    INFO(profiled.err);
    CHECK(profiled.exitCode == kx::cli::Ok);
    CHECK(contains(profiled.out, "profile of the candidate on NVIDIA H100 80GB HBM3 (gpu-a), ncu 2025.3.0.0"));
    CHECK(contains(profiled.out, "profile of the eager reference on NVIDIA H100 80GB HBM3"));
    CHECK(contains(profiled.out, "17.30 MB read + 8.19 MB written; the model expects 536.87 MB (measured 0.05x)"));
    CHECK(contains(profiled.out, "1699 GB/s achieved; the card's copy bandwidth 3000 GB/s (57%)"));
    CHECK(contains(profiled.out, "top stalls:       long_scoreboard 5.27, barrier 0.87, wait 0.78"));
    CHECK(contains(profiled.out, "kernel void reduce_max<128, 4>(const float *, float *): 2.50 us"));
    CHECK(contains(profiled.out, "finding moved-too-few-bytes"));
    CHECK(contains(profiled.out, "not printed by this ncu: sm__pipe_tensor_cycles_active"));

    // ncu was asked as documented, once for each target, with the child on the chosen GPU.
    const std::string calls = kx::test::readFile(argsLog);
    for (const char *flag :
         {"--profile-from-start off", "--clock-control none", "--csv", "--page raw", "--target-processes all",
          "--section SpeedOfLight", "--section MemoryWorkloadAnalysis", "--section Occupancy", "--section LaunchStats",
          "--section WarpStateStats", "--metrics dram__bytes_read.sum,dram__bytes_write.sum", "profile-launch",
          "--what candidate", "--what eager", "--device 1"})
        CHECK_MESSAGE(contains(calls, flag), flag);

    const auto profiles = storedProfiles(archive);
    REQUIRE(profiles.size() == 2);
    CHECK(profiles[0].at("target") == "candidate");
    CHECK(profiles[0].at("gpu").at("uuid") == "GPU-fake");
    CHECK(profiles[0].at("ncuVersion") == "2025.3.0.0");
    CHECK(profiles[0].at("metrics").at("kernels") == 2);
    CHECK(profiles[0].at("kernels").size() == 2);
    CHECK(profiles[0].at("findings").size() == 1);
    CHECK(profiles[0].at("findings").at(0).at("kind") == "moved-too-few-bytes");
    CHECK(profiles[0].at("traffic").at("judged") == true);
    CHECK(profiles[0].at("error") == "");
    CHECK(profiles[1].at("target") == "eager");
    CHECK(profiles[1].at("findings").empty()); // the reference is the yardstick, not a suspect

    // kx archive show prints them with the rest of the evidence.
    const auto shown = runKx({"archive", "show", "-a", archive, kRelu});
    CHECK(contains(shown.out, "profile of the candidate on NVIDIA H100 80GB HBM3"));
    CHECK(contains(shown.out, "finding moved-too-few-bytes"));

    // --candidate-only leaves the reference out; --json prints what was stored.
    const auto json = runKx({"profile", kRelu, "-a", archive, "--ncu", kFakeNcu, "--candidate-only", "--json"});
    REQUIRE(json.exitCode == kx::cli::Ok);
    const auto printed = nlohmann::json::parse(json.out);
    REQUIRE(printed.size() == 1);
    CHECK(printed[0].at("target") == "candidate");
    CHECK(storedProfiles(archive).size() == 3);
}

TEST_CASE("without ncu kx profile says so, exits 5 and changes nothing")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const std::string before = kx::test::fileSha256(archive);
    for (const auto &[arguments, environment] :
         std::vector<std::pair<std::vector<std::string>, kx::test::ChildProcess::Environment>>{
             {{"--ncu", dir.filePath("no-such-ncu")}, {}},
             {{}, {{"KX_NCU", dir.filePath("no-such-ncu")}}},
             {{}, {{"KX_NCU", dir.path()}}}, // a folder is no program
         }) {
        std::vector<std::string> command{"profile", kRelu, "-a", archive};
        command.insert(command.end(), arguments.begin(), arguments.end());
        const auto result = runKx(command, environment);
        CHECK(result.exitCode == kx::cli::Unavailable);
        CHECK(contains(result.err, "Nsight Compute (ncu) not found: "));
        CHECK(result.out.empty());
    }
    CHECK(kx::test::fileSha256(archive) == before);
    CHECK(storedProfiles(archive).empty());
}

TEST_CASE("ncu's own failure is stored as the profile's error and fails the command")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const auto result = runKx({"profile", kRelu, "-a", archive, "--ncu", kFakeNcu}, {{"FAKE_NCU_MODE", "denied"}});
    CHECK(result.exitCode == kx::cli::Failure);
    CHECK(contains(result.err, "ERR_NVGPUCTRPERM"));
    const auto profiles = storedProfiles(archive);
    REQUIRE(profiles.size() == 2);
    CHECK(contains(profiles[0].at("error").get<std::string>(), "ERR_NVGPUCTRPERM"));
    CHECK(profiles[0].at("findings").empty());
}

TEST_CASE("no GPU exits 4 and stores nothing")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const auto result = runKx({"profile", kRelu, "-a", archive, "--ncu", kFakeNcu}, {{"FAKE_NCU_MODE", "nogpu"}});
    CHECK(result.exitCode == kx::cli::NoGpu);
    CHECK(contains(result.err, "no GPU: no CUDA device is available"));
    CHECK(storedProfiles(archive).empty());
}

TEST_CASE("an unknown candidate or a read-only archive is refused before ncu runs")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const std::string argsLog = dir.filePath("ncu-args.txt");
    const auto unknown = runKx({"profile", "ffff0000", "-a", archive, "--ncu", kFakeNcu}, {{"FAKE_NCU_ARGS", argsLog}});
    CHECK(unknown.exitCode == kx::cli::Failure);
    CHECK(contains(unknown.err, "ffff0000"));
    CHECK_FALSE(kx::test::fileExists(argsLog));

    REQUIRE(::chmod(archive.c_str(), 0444) == 0);
    const auto readOnly = runKx({"profile", kRelu, "-a", archive, "--ncu", kFakeNcu}, {{"FAKE_NCU_ARGS", argsLog}});
    CHECK(readOnly.exitCode == kx::cli::BadInput);
    CHECK(contains(readOnly.err, "read-only"));
    CHECK_FALSE(kx::test::fileExists(argsLog));
}

TEST_CASE("help: the command, its exit code; the child stays hidden")
{
    const auto help = runKx({"profile", "--help"});
    CHECK(help.exitCode == 0);
    CHECK(contains(help.out, "Nsight Compute"));
    CHECK(contains(help.out, "--ncu"));
    CHECK(contains(help.out, "--gpu"));
    const auto top = runKx({"--help"});
    CHECK(contains(top.out, "\n  5    a tool it needs is not available (e.g. Nsight Compute)\n"));
    CHECK(contains(top.out, "profile"));
    CHECK_FALSE(contains(top.out, "profile-launch"));
}
