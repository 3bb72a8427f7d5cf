// Nsight Compute's CSV (--csv --page raw) read into per-kernel and aggregate metrics, and the traffic rule.
#include "core/profile/ncureport.h"
#include "core/profile/trafficcheck.h"

#include "testfiles.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

using namespace kx;

namespace {

std::string fixture(const std::string &name)
{
    return test::readFile(KX_TEST_DATA_DIR "/ncu/" + name);
}

} // namespace

TEST_CASE("CSV fields keep quoted commas, doubled quotes and empty fields")
{
    const auto records = parseCsv("\"a, b\",\"say \"\"hi\"\"\",,3\r\n\"x\"\n\n\"last\",\n");
    REQUIRE(records.size() == 3);
    CHECK(records[0] == std::vector<std::string>{"a, b", "say \"hi\"", "", "3"});
    CHECK(records[1] == std::vector<std::string>{"x"});
    CHECK(records[2] == std::vector<std::string>{"last", ""});
}

TEST_CASE("the raw page: header, units row and one row per kernel, after ncu's own lines")
{
    const auto report = NcuReport::parse(fixture("two-kernels.csv"));
    REQUIRE(report);
    REQUIRE(report->kernelCount() == 2);
    CHECK(report->kernelName(0) == "softmax_rows(const float *, float *, int)");
    CHECK(report->kernelName(1) == "void reduce_max<128, 4>(const float *, float *)");
    // Base units whatever scale ncu printed: Mbyte, Kbyte with thousands separators, usecond.
    CHECK(*report->value(0, "dram__bytes_read.sum") == doctest::Approx(16.78e6));
    CHECK(*report->value(0, "dram__bytes_write.sum") == doctest::Approx(8.192e6));
    CHECK(*report->value(0, "gpu__time_duration.sum") == doctest::Approx(12500));
    CHECK(*report->value(0, "lts__t_sectors.sum") == doctest::Approx(1048576));
    CHECK_FALSE(report->value(1, "dram__bytes_write.sum")); // "n/a"
    CHECK_FALSE(report->value(0, "sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active"));

    const auto kernels = report->kernels();
    REQUIRE(kernels.size() == 2);
    CHECK(*kernels[1].durationNs == doctest::Approx(2500));
    CHECK(*kernels[1].dramReadBytes == doctest::Approx(0.52e6));
    CHECK_FALSE(kernels[1].dramWriteBytes);
}

TEST_CASE("aggregation over the kernels of one launch")
{
    const auto report = NcuReport::parse(fixture("two-kernels.csv"));
    REQUIRE(report);
    const ProfileMetrics metrics = report->aggregate();
    CHECK(metrics.kernels == 2);
    CHECK(*metrics.durationNs == doctest::Approx(15000));
    CHECK(*metrics.dramReadBytes == doctest::Approx(17.30e6));
    CHECK(*metrics.dramWriteBytes == doctest::Approx(8.192e6)); // the kernel without a value adds nothing
    CHECK(*metrics.dramBytes() == doctest::Approx(25.492e6));
    CHECK(*metrics.achievedBandwidthGBs == doctest::Approx(25.492e6 / 15000));
    // Duration-weighted: 12.5 us and 2.5 us.
    CHECK(*metrics.smThroughputPct == doctest::Approx((35.1 * 12500 + 12.0 * 2500) / 15000));
    CHECK(*metrics.achievedOccupancyPct == doctest::Approx((82.3 * 12500 + 40.0 * 2500) / 15000));
    CHECK(*metrics.registersPerThread == 64);
    // L2 hit rate weighted by the sectors each kernel looked up.
    CHECK(*metrics.l2HitRatePct == doctest::Approx((41.2 * 1048576 + 90.0 * 16384) / (1048576.0 + 16384)));
    // Top three stall reasons, largest first; "selected" issues and is no stall.
    REQUIRE(metrics.topStalls.size() == 3);
    CHECK(metrics.topStalls[0].name == "long_scoreboard");
    CHECK(metrics.topStalls[0].cyclesPerIssue == doctest::Approx((6.1 * 12500 + 1.1 * 2500) / 15000));
    CHECK(metrics.topStalls[1].name == "barrier");
    CHECK(metrics.topStalls[2].name == "wait");
    // The tensor pipes are not in this output: said so, not reported as 0.
    CHECK_FALSE(metrics.tensorPipePct);
    CHECK(metrics.missing == std::vector<std::string>{ncumetrics::kTensorPipe.front()});
}

TEST_CASE("older metric names and the older stall spelling are found too")
{
    const std::string csv = "\"ID\",\"Kernel Name\",\"gpu__time_duration.sum\",\"dram__bytes_read.sum\","
                            "\"sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active\","
                            "\"smsp__average_warp_latency_issue_stalled_short_scoreboard.ratio\","
                            "\"smsp__average_warp_latency_issue_stalled_selected.ratio\"\n"
                            "\"\",\"\",\"nsecond\",\"byte\",\"%\",\"\",\"\"\n"
                            "\"0\",\"gemm\",\"1,000\",\"4096\",\"61.5\",\"2.5\",\"1\"\n";
    const auto report = NcuReport::parse(csv);
    REQUIRE(report);
    const auto metrics = report->aggregate();
    CHECK(*metrics.tensorPipePct == doctest::Approx(61.5));
    REQUIRE(metrics.topStalls.size() == 1);
    CHECK(metrics.topStalls[0].name == "short_scoreboard");
    CHECK(*metrics.dramReadBytes == doctest::Approx(4096));
    CHECK_FALSE(metrics.dramWriteBytes);
    CHECK(*metrics.dramBytes() == doctest::Approx(4096));
    const auto &missing = metrics.missing;
    CHECK(std::find(missing.begin(), missing.end(), ncumetrics::kDramWrite.front()) != missing.end());
    CHECK(std::find(missing.begin(), missing.end(), ncumetrics::kRegisters.front()) != missing.end());
}

TEST_CASE("stall metric names")
{
    CHECK(stallReasonOf("smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio")
          == "long_scoreboard");
    CHECK(stallReasonOf("smsp__average_warp_latency_issue_stalled_barrier.ratio") == "barrier");
    CHECK(stallReasonOf("smsp__average_warps_issue_stalled_selected_per_issue_active.ratio").empty());
    CHECK(stallReasonOf("smsp__average_warps_issue_stalled_wait_per_warp_active.pct").empty());
    CHECK(stallReasonOf("dram__bytes_read.sum").empty());
}

TEST_CASE("ncu's errors and version")
{
    const std::string denied = fixture("permission-denied.txt");
    CHECK_FALSE(NcuReport::parse(denied));
    const std::string errors = ncuErrors(denied);
    CHECK(errors.find("ERR_NVGPUCTRPERM") != std::string::npos);
    CHECK(errors.find("==PROF==") == std::string::npos);
    CHECK(ncuErrors(fixture("two-kernels.csv")).empty());
    CHECK(ncuVersionOf(fixture("version.txt")) == "2025.3.0.0");
    CHECK(ncuVersionOf("something else").empty());
}

namespace {

// y = x * 2 over N floats: the model says 8 N bytes, 4 N of them inputs.
Op scaleOp(std::int64_t n)
{
    Op op;
    op.name = "scale";
    op.inputs = {{"x", {"N"}, "float32"}};
    op.outputs = {{"y", {"N"}, "float32"}};
    op.shapeSets = {{{"N", n}}};
    op.bytesMovedExpr = "8*N";
    return op;
}

GpuInfo gpuWithL2(std::int64_t l2Bytes)
{
    GpuInfo gpu;
    gpu.name = "Test GPU";
    gpu.l2Bytes = l2Bytes;
    gpu.measuredBandwidthGBs = 3000;
    return gpu;
}

ProfileMetrics traffic(double readBytes, double writeBytes)
{
    ProfileMetrics metrics;
    metrics.kernels = 1;
    metrics.dramReadBytes = readBytes;
    metrics.dramWriteBytes = writeBytes;
    metrics.durationNs = 1000;
    return metrics;
}

} // namespace

TEST_CASE("moved-too-few-bytes: under half the model's bytes where the inputs exceed L2")
{
    const Op op = scaleOp(64 << 20); // 256 MiB in, 256 MiB out
    const GpuInfo gpu = gpuWithL2(50 << 20);
    const double model = 8.0 * (64 << 20);

    const auto cheat = compareTraffic(op, gpu, traffic(1e6, 2e6));
    CHECK(cheat.judged);
    CHECK(cheat.modelBytes == doctest::Approx(model));
    CHECK(cheat.inputBytes == doctest::Approx(4.0 * (64 << 20)));
    CHECK(*cheat.ratio == doctest::Approx(3e6 / model));
    CHECK(cheat.measuredBandwidthGBs == doctest::Approx(3000));
    const auto finding = movedTooFewBytes(cheat);
    REQUIRE(finding);
    CHECK(finding->kind == "moved-too-few-bytes");
    const auto evidence = nlohmann::json::parse(finding->evidence);
    CHECK(evidence.at("measuredBytes").get<double>() == doctest::Approx(3e6));
    CHECK(evidence.at("modelBytes").get<double>() == doctest::Approx(model));
    CHECK(evidence.at("threshold").get<double>() == doctest::Approx(kMinTrafficFraction));
    CHECK(evidence.at("rule").get<std::string>() == trafficRule());

    // An honest launch: inputs read once, outputs written (some may still sit in L2).
    CHECK_FALSE(movedTooFewBytes(compareTraffic(op, gpu, traffic(model / 2, model / 2 - (50 << 20)))));
    // Exactly half is not under half.
    CHECK_FALSE(movedTooFewBytes(compareTraffic(op, gpu, traffic(model / 4, model / 4))));
    CHECK(movedTooFewBytes(compareTraffic(op, gpu, traffic(model / 4, model / 4 - 1024))));
}

TEST_CASE("moved-too-few-bytes is not judged where it would prove nothing")
{
    const GpuInfo gpu = gpuWithL2(50 << 20);
    // Inputs that fit in L2 (4 MiB) could be served from it.
    const auto small = compareTraffic(scaleOp(1 << 20), gpu, traffic(0, 0));
    CHECK_FALSE(small.judged);
    CHECK(small.note.find("fit in the L2 cache") != std::string::npos);
    CHECK_FALSE(movedTooFewBytes(small));
    // No DRAM counts, no byte model, no L2 size.
    CHECK_FALSE(compareTraffic(scaleOp(64 << 20), gpu, ProfileMetrics{}).judged);
    Op noModel = scaleOp(64 << 20);
    noModel.bytesMovedExpr.clear();
    CHECK_FALSE(compareTraffic(noModel, gpu, traffic(0, 0)).judged);
    CHECK_FALSE(compareTraffic(scaleOp(64 << 20), gpuWithL2(0), traffic(0, 0)).judged);
}

TEST_CASE("only the candidate's own launch gets findings; a failed profile gets none")
{
    Profile profile;
    profile.gpu = gpuWithL2(50 << 20);
    profile.metrics = traffic(1e6, 1e6);
    profile.target = ProfileTarget::Eager;
    addTrafficEvidence(scaleOp(64 << 20), profile);
    REQUIRE(profile.traffic);
    CHECK(profile.traffic->judged);
    CHECK(profile.findings.empty());
    profile.target = ProfileTarget::Candidate;
    addTrafficEvidence(scaleOp(64 << 20), profile);
    CHECK(profile.findings.size() == 1);
    profile.error = "ncu failed";
    addTrafficEvidence(scaleOp(64 << 20), profile);
    CHECK(profile.findings.empty());
    CHECK_FALSE(profile.traffic);
}

TEST_CASE("profiles survive JSON")
{
    const auto report = NcuReport::parse(fixture("two-kernels.csv"));
    REQUIRE(report);
    Profile profile;
    profile.candidateId = "abcd";
    profile.target = ProfileTarget::Candidate;
    profile.gpu = gpuWithL2(50 << 20);
    profile.ncuVersion = "2025.3.0.0";
    profile.createdAtMs = 1234;
    profile.metrics = report->aggregate();
    profile.kernels = report->kernels();
    addTrafficEvidence(scaleOp(64 << 20), profile);
    const nlohmann::json json = profile;
    CHECK(json.at("metrics").at("tensorPipePct").is_null());
    CHECK(json.get<Profile>() == profile);
}
