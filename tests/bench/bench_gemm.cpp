// The GEMM templates against cuBLAS on one GPU: each configuration is generated, compiled with NVRTC and
// evaluated in full (correctness trials, timed runs against eager PyTorch) at each shape. Prints a Markdown
// table with TFLOP/s and the largest errors; run by bench_gemm.sh.
//   bench_gemm [--op OP] [--shape M=4096,N=4096,K=4096]... [--precision fp32|tf32] [--commit TEXT] CONFIG...
// A CONFIG is a template name with its changes to the defaults: "gemm-tensorcore:bm=128,bn=256,warpsN=4".
#include "core/codegen/kerneltemplate.h"
#include "core/codegen/oprecipe.h"
#include "core/domain/candidate.h"
#include "core/eval/workerpool.h"
#include "core/gpu/gpuevaluator.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"
#include "core/util/clock.h"

#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

using namespace kx;

namespace {

std::vector<std::string> split(const std::string &text, char separator)
{
    std::vector<std::string> parts;
    std::stringstream stream(text);
    for (std::string part; std::getline(stream, part, separator);)
        if (!part.empty())
            parts.push_back(part);
    return parts;
}

// "M=4096,N=4096,K=4096"
ShapeSet parseShape(const std::string &text)
{
    ShapeSet shape;
    for (const auto &binding : split(text, ',')) {
        const auto equals = binding.find('=');
        if (equals == std::string::npos)
            throw std::invalid_argument("a shape binds NAME=VALUE: " + binding);
        shape[binding.substr(0, equals)] = std::stoll(binding.substr(equals + 1));
    }
    return shape;
}

struct Config
{
    std::string label;
    const KernelTemplate *kernelTemplate = nullptr;
    Params changes;
};

// "gemm-tensorcore:bm=128,bn=256"
Config parseConfig(const std::string &text)
{
    Config config;
    config.label = text;
    const auto colon = text.find(':');
    config.kernelTemplate = findKernelTemplate(text.substr(0, colon));
    if (!config.kernelTemplate)
        throw std::invalid_argument("no template " + text.substr(0, colon));
    if (colon != std::string::npos)
        for (const auto &[name, value] : parseShape(text.substr(colon + 1)))
            config.changes[name] = int(value);
    return config;
}

std::string fixed(double value, int decimals)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", decimals, value);
    return text;
}

std::string scientific(double value)
{
    char text[64];
    std::snprintf(text, sizeof text, "%.1e", value);
    return text;
}

std::string shapeText(const ShapeSet &shape)
{
    std::string text;
    for (const auto &[name, value] : shape)
        text += (text.empty() ? "" : " ") + name + "=" + std::to_string(value);
    return text;
}

} // namespace

int main(int argc, char **argv)
{
    std::string opName = "matmul";
    std::string commit = "uncommitted";
    Precision precision = Precision::Fp32;
    std::vector<ShapeSet> shapes;
    std::vector<Config> configs;
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string argument = argv[i];
            const bool hasValue = i + 1 < argc;
            if (argument == "--op" && hasValue)
                opName = argv[++i];
            else if (argument == "--shape" && hasValue)
                shapes.push_back(parseShape(argv[++i]));
            else if (argument == "--precision" && hasValue)
                precision = precisionFromString(argv[++i]);
            else if (argument == "--commit" && hasValue)
                commit = argv[++i];
            else
                configs.push_back(parseConfig(argument));
        }
    } catch (const std::exception &error) {
        std::cerr << "bench_gemm: " << error.what() << '\n';
        return 2;
    }
    const Op *builtIn = findBuiltInOp(opName);
    if (!builtIn) {
        std::cerr << "bench_gemm: no op " << opName << " (see kx ops)\n";
        return 2;
    }
    const auto recipe = recipeOf(*builtIn);
    if (!recipe) {
        std::cerr << "bench_gemm: " << recipe.error().message << '\n';
        return 2;
    }
    if (shapes.empty())
        shapes.push_back(builtIn->shapeSets.front());
    if (configs.empty())
        configs.push_back(parseConfig("gemm-tensorcore"));

    GpuEvaluator evaluator(0);
    if (!evaluator.unavailableReason().empty()) {
        std::cerr << evaluator.unavailableReason() << '\n';
        return 77;
    }
    const GpuInfo gpu = evaluator.describe();
    CompileOptions options;
    options.arch = archForComputeCapability(gpu.computeCapability);
    options.wantPtx = false;
    const NvrtcCompiler compiler;
    EvalSettings settings;
    settings.precision = precision;
    settings.inductorBaseline = false; // torch.compile runs a matrix product on cuBLAS too: eager is the yardstick
    settings.seed = 2026;

    std::cout << "### " << opName << ": GEMM templates against eager PyTorch (cuBLAS)\n\n"
              << "- Date: " << isoUtc(nowMs()) << "; commit " << commit << "\n"
              << "- GPU: " << gpu.name << " (cc " << gpu.computeCapability << ", " << gpu.smCount << " SMs), driver "
              << gpu.driverVersion << ", NVRTC " << gpu.nvrtcVersion << ", LibTorch " << gpu.torchVersion << "\n"
              << "- Precision policy " << toString(precision)
              << " (eager under the same rules); every kernel is checked "
              << "in full (" << settings.trials
              << " trials, the op's odd shape set too) and timed >= " << settings.timedRuns
              << " runs with the L2 flushed; errors are the largest against the LibTorch "
                 "reference\n\n"
              << "| shape | configuration | status | registers | spill B | kernel ms | eager ms | TFLOP/s | speedup "
                 "| max abs err | max rel err |\n"
              << "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    int failures = 0;
    for (const auto &shape : shapes) {
        Op op = *builtIn;
        // The measured shape first (timing uses it), then the op's odd one for the edges.
        op.shapeSets = {shape, builtIn->shapeSets.back()};
        const double flops =
            2.0 * double(shape.at(recipe->m)) * double(shape.at(recipe->n)) * double(shape.at(recipe->k));
        for (const auto &config : configs) {
            Params params = config.kernelTemplate->defaults(op, *recipe);
            for (const auto &[name, value] : config.changes)
                params[name] = value;
            const std::string row = "| " + shapeText(shape) + " | " + config.label + " | ";
            if (const auto problem = config.kernelTemplate->check(op, *recipe, params); !problem.empty()) {
                std::cout << row << "invalid: " << problem << " | | | | | | | | |\n";
                continue;
            }
            const auto generated = config.kernelTemplate->generate(op, *recipe, params);
            const auto compiled = compiler.compile(generated.source, options);
            if (!compiled.ok) {
                std::cout << row << "compile error | | | | | | | | |\n" << std::flush;
                std::cerr << compiled.error << '\n' << compiled.stats.log << '\n';
                ++failures;
                continue;
            }
            const auto outcome = evaluator.evaluate(compiledRequest(
                op, generated.source, generated.launchPlan, options.arch, compiled.cubin, compiled.stats, settings));
            const auto &e = outcome.evaluation;
            const bool correct = e.status == EvalStatus::Correct;
            failures += !correct;
            std::cout << row << toString(e.status) << (correct ? "" : ": " + e.message) << " | "
                      << compiled.stats.registers << " | " << compiled.stats.spillBytes << " | "
                      << fixed(e.timing.medianMs, 4) << " | " << fixed(e.baseline.medianMs, 4) << " | "
                      << (e.timing.medianMs > 0 ? fixed(flops / (e.timing.medianMs * 1e9), 1) : "-") << " | "
                      << fixed(e.speedup, 2) << "x | " << scientific(e.correctness.maxAbsError) << " | "
                      << scientific(e.correctness.maxRelError) << " |\n"
                      << std::flush;
            if (outcome.workerMustExit)
                return 1;
        }
    }
    return failures == 0 ? 0 : 1;
}
