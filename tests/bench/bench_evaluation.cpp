// Evaluation throughput on one GPU: NVRTC compile plus the full GPU evaluation (trials, timed runs) of
// distinct relu candidates on 64Mi floats. Prints a Markdown report; run by bench_evaluation.sh.
#include "core/domain/candidate.h"
#include "core/eval/workerpool.h"
#include "core/gpu/gpuevaluator.h"
#include "core/gpu/tensorview.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"
#include "core/util/clock.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

using namespace kx;

namespace {

struct Variant
{
    std::string label;
    std::string source;
    std::string plan;
};

// Scalar and float4-vectorised relu at several block sizes: each one a distinct compile.
std::vector<Variant> variants(int count)
{
    std::vector<Variant> result;
    const int blocks[] = {128, 256, 512, 1024};
    for (int i = 0; int(result.size()) < count; ++i) {
        const int block = blocks[i % 4];
        const bool vector = (i / 4) % 2 == 1;
        // "unroll N": a grid N times smaller, so each thread of the grid-stride loop handles N times the elements.
        const int unroll = 1 + i / 8;
        Variant v;
        v.label = std::string(vector ? "float4" : "scalar") + ", block " + std::to_string(block)
                  + (unroll > 1 ? ", unroll " + std::to_string(unroll) : "");
        const std::string kernel = "relu_" + std::to_string(i);
        if (!vector) {
            v.source = "extern \"C\" __global__ void " + kernel
                       + "(const float* __restrict__ x, float* __restrict__ out, int n)\n{\n"
                         "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)\n"
                         "        out[i] = fmaxf(x[i], 0.0f);\n}\n";
        } else {
            v.source =
                "extern \"C\" __global__ void " + kernel
                + "(const float* __restrict__ x, float* __restrict__ out, int n)\n{\n"
                  "    int v = n / 4;\n"
                  "    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < v; i += gridDim.x * blockDim.x) {\n"
                  "        float4 a = reinterpret_cast<const float4*>(x)[i];\n"
                  "        a.x = fmaxf(a.x, 0.0f); a.y = fmaxf(a.y, 0.0f); a.z = fmaxf(a.z, 0.0f); a.w = fmaxf(a.w, "
                  "0.0f);\n"
                  "        reinterpret_cast<float4*>(out)[i] = a;\n"
                  "    }\n"
                  "    int tail = v * 4 + blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "    if (tail < n)\n"
                  "        out[tail] = fmaxf(x[tail], 0.0f);\n}\n";
        }
        const std::string grid = "min(ceil_div(N, " + std::to_string(block * (vector ? 4 : 1) * unroll) + "), 65535)";
        v.plan = "{\"steps\": [{\"kernel\": \"" + kernel + "\", \"grid\": [\"" + grid + "\"], \"block\": [\""
                 + std::to_string(block)
                 + "\"], \"args\": [{\"input\": \"x\"}, {\"output\": \"out\"}, {\"int\": \"N\"}]}]}";
        result.push_back(std::move(v));
    }
    return result;
}

double msSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

std::string fixed(double value, int decimals = 1)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

} // namespace

int main(int argc, char **argv)
{
    int count = 8;
    std::string commit = "uncommitted";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string option = argv[i];
        if (option == "--candidates")
            count = std::max(1, std::atoi(argv[i + 1]));
        else if (option == "--commit")
            commit = argv[i + 1];
    }

    GpuEvaluator evaluator(0);
    if (!evaluator.unavailableReason().empty()) {
        std::cerr << evaluator.unavailableReason() << '\n';
        return 77;
    }
    const GpuInfo gpu = evaluator.describe();

    Op op = *findBuiltInOp("relu");
    op.shapeSets = {{{"N", std::int64_t(64) << 20}}, {{"N", 1000003}}};
    EvalSettings
        settings; // the defaults: 11 trials and a special-values one, 10 warmups, >= 100 timed runs, 3 input sets
    settings.seed = 2026;

    CompileOptions options;
    options.arch = archForComputeCapability(gpu.computeCapability);
    options.wantPtx = false;
    const NvrtcCompiler compiler;
    // NVRTC's first call loads its builtins (seconds); a real worker pays that once, not per candidate.
    const auto warmStart = std::chrono::steady_clock::now();
    (void)compiler.compile("extern \"C\" __global__ void warm() {}", options);
    const double nvrtcFirstCallMs = msSince(warmStart);

    std::cout << "### Evaluation throughput, relu on 64Mi floats\n\n"
              << "- Date: " << isoUtc(nowMs()) << "\n"
              << "- GPU: " << gpu.name << " (cc " << gpu.computeCapability << ", " << gpu.smCount << " SMs, L2 "
              << gpu.l2Bytes / (1 << 20) << " MiB), driver " << gpu.driverVersion << ", CUDA runtime "
              << gpu.cudaRuntimeVersion << ", NVRTC " << gpu.nvrtcVersion << ", LibTorch " << gpu.torchVersion << "\n"
              << "- Commit: " << commit << "\n"
              << "- Measured copy bandwidth " << fixed(gpu.measuredBandwidthGBs, 0) << " GB/s; NVRTC first call "
              << fixed(nvrtcFirstCallMs, 0) << " ms (once per process, not counted below)\n"
              << "- Settings: " << settings.trials << " correctness trials (2 shape sets, "
              << trialDistributions().size() << " input distributions, two runs each) and one with special values, "
              << settings.warmupRuns << " warmups, >= " << settings.timedRuns << " timed runs of candidate and "
              << "reference each, the candidate's cycling through " << settings.timingInputSets
              << " input sets, L2 flushed before every timed run\n\n"
              << "| # | candidate | status | compile ms | prepare ms | check ms | timing ms | total ms | timed runs "
                 "| kernel median ms | PyTorch median ms | speedup |\n"
              << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";

    double compileSum = 0;
    double prepareSum = 0;
    double checkSum = 0;
    double timingSum = 0;
    double totalSum = 0;
    double firstTotalMs = 0;
    int correct = 0;
    const auto all = variants(count);
    for (std::size_t i = 0; i < all.size(); ++i) {
        const auto &v = all[i];
        const auto start = std::chrono::steady_clock::now();
        const auto compiled = compiler.compile(v.source, options);
        const double compileMs = msSince(start);
        if (!compiled.ok) {
            std::cerr << "compile failed: " << compiled.error << '\n' << compiled.stats.log << '\n';
            return 1;
        }
        const auto outcome = evaluator.evaluate(
            compiledRequest(op, v.source, v.plan, options.arch, compiled.cubin, compiled.stats, settings));
        const double totalMs = msSince(start);
        const auto &e = outcome.evaluation;
        const auto &phases = evaluator.lastPhases();
        if (e.status == EvalStatus::Correct)
            ++correct;
        else
            std::cerr << "candidate " << i << ": " << e.message << '\n';
        compileSum += compileMs;
        prepareSum += phases.prepareMs;
        checkSum += phases.checkMs;
        timingSum += phases.timingMs;
        totalSum += totalMs;
        if (i == 0)
            firstTotalMs = totalMs;
        std::cout << "| " << i << " | " << v.label << " | " << toString(e.status) << " | " << fixed(compileMs) << " | "
                  << fixed(phases.prepareMs) << " | " << fixed(phases.checkMs) << " | " << fixed(phases.timingMs)
                  << " | " << fixed(totalMs) << " | " << e.timing.runs << " | " << fixed(e.timing.medianMs, 4) << " | "
                  << fixed(e.baseline.medianMs, 4) << " | " << fixed(e.speedup, 2) << " |\n";
        if (outcome.workerMustExit)
            return 1;
    }

    const double n = double(all.size());
    const double other = totalSum - compileSum - prepareSum - checkSum - timingSum;
    std::cout << "\n"
              << correct << " of " << all.size() << " candidates correct. Mean per candidate: " << fixed(totalSum / n)
              << " ms end to end = " << fixed(compileSum / n) << " compile (" << fixed(100 * compileSum / totalSum, 0)
              << "%) + " << fixed(prepareSum / n) << " prepare (" << fixed(100 * prepareSum / totalSum, 0) << "%) + "
              << fixed(checkSum / n) << " checking (" << fixed(100 * checkSum / totalSum, 0) << "%) + "
              << fixed(timingSum / n) << " timing (" << fixed(100 * timingSum / totalSum, 0) << "%) + "
              << fixed(other / n) << " other; **" << fixed(60000.0 / (totalSum / n), 0)
              << " candidates per minute** on one GPU.";
    if (all.size() > 1) {
        // The first evaluation of a process also loads LibTorch's kernels; a worker pays that once.
        const double steady = (totalSum - firstTotalMs) / (n - 1);
        std::cout << " Without the first candidate (" << fixed(firstTotalMs)
                  << " ms, one-time loading): " << fixed(steady) << " ms per candidate, " << fixed(60000.0 / steady, 0)
                  << " per minute.";
    }
    std::cout << "\n";
    return correct == int(all.size()) ? 0 : 1;
}
