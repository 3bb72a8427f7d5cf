// kx best [OP], kx runs
#include "commands.h"
#include "format.h"

#include "core/archive/archive.h"
#include "core/plan/roofline.h"
#include "core/util/clock.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace kx::cli {
namespace {

struct ResultOptions
{
    std::string archive;
    std::string op;
    std::string gpu;
    bool json = false;
};

// How close a kernel is to the physical floor of its op on its GPU under its precision policy: floor time /
// measured time (the floor of core/plan/roofline.h, the one the "impossible" flag uses).
struct Roofline
{
    double achievedGBs = 0;
    double achievedTflops = 0;
    double fraction = 0;
};

Roofline rooflineOf(const Archive &archive, const BestKernel &kernel)
{
    Roofline roofline;
    const auto op = archive.op(kernel.opName);
    if (!op || kernel.medianMs <= 0)
        return roofline;
    GpuInfo gpu;
    for (const auto &evaluation : archive.evaluations(kernel.candidateId))
        if (evaluation.gpu.name == kernel.gpuName)
            gpu = evaluation.gpu;
    const auto floor = rooflineFloor(*op, gpu, kernel.precision);
    if (!floor)
        return roofline;
    const double seconds = kernel.medianMs * 1e-3;
    roofline.achievedGBs = floor->bytes / seconds / 1e9;
    roofline.achievedTflops = floor->flops / seconds / 1e12;
    roofline.fraction = floor->floorMs / kernel.medianMs;
    return roofline;
}

int runBest(const ResultOptions &options)
{
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const auto best = archive->bestKernels(options.op, options.gpu);
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &kernel : best) {
            const Roofline roofline = rooflineOf(*archive, kernel);
            const auto overInductor = kernel.speedupOverInductor();
            out.push_back({{"op", kernel.opName},
                           {"gpu", kernel.gpuName},
                           {"precision", toString(kernel.precision)},
                           {"candidate", kernel.candidateId},
                           {"speedup", kernel.speedup},
                           {"medianMs", kernel.medianMs},
                           {"baselineMs", kernel.baselineMs},
                           {"inductorMs", kernel.inductorMs ? nlohmann::json(*kernel.inductorMs) : nlohmann::json()},
                           {"speedupOverInductor", overInductor ? nlohmann::json(*overInductor) : nlohmann::json()},
                           {"inductorMethod", kernel.inductorMethod},
                           {"inductorNote", kernel.inductorNote},
                           {"standing", standingText(kernel.speedup, overInductor)},
                           {"achievedGBs", roofline.achievedGBs},
                           {"achievedTflops", roofline.achievedTflops},
                           {"rooflineFraction", roofline.fraction}});
        }
        std::cout << out.dump(2) << '\n';
        return Ok;
    }
    if (best.empty()) {
        std::cout << "no correct kernel" << (options.op.empty() ? "" : " for " + options.op)
                  << (options.gpu.empty() ? "" : " on " + options.gpu) << " in " << archive->path() << '\n';
        return options.op.empty() ? Ok : Failure;
    }
    TextTable table({"OP", "GPU", "PRECISION", "CANDIDATE", "KERNEL", "EAGER", "INDUCTOR", "X EAGER", "X INDUCTOR",
                     "ROOFLINE", "STANDING"});
    for (const auto &kernel : best) {
        const Roofline roofline = rooflineOf(*archive, kernel);
        const auto overInductor = kernel.speedupOverInductor();
        char fraction[16];
        std::snprintf(fraction, sizeof fraction, "%.0f%%", roofline.fraction * 100);
        table.addRow({kernel.opName, kernel.gpuName, toString(kernel.precision), shortId(kernel.candidateId),
                      formatMs(kernel.medianMs), formatMs(kernel.baselineMs),
                      kernel.inductorMs ? formatMs(*kernel.inductorMs) : "-", formatSpeedup(kernel.speedup),
                      overInductor ? formatSpeedup(*overInductor) : "-", fraction,
                      standingText(kernel.speedup, overInductor)});
    }
    table.print(std::cout);
    return Ok;
}

int runRuns(const ResultOptions &options)
{
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const auto runs = archive->runs(options.op);
    nlohmann::json out = nlohmann::json::array();
    TextTable table({"RUN", "OP", "STATE", "SEED", "CANDIDATES", "BEST", "STARTED"});
    for (const auto &run : runs) {
        CandidateFilter filter;
        filter.runId = run.id;
        int candidates = 0;
        double best = 0;
        for (const auto &row : archive->candidateSummaries(filter)) {
            ++candidates;
            if (row.bestStatus == EvalStatus::Correct && row.flagCount == 0)
                best = std::max(best, row.bestSpeedup);
        }
        const RunCost cost = archive->runCost(run.id);
        if (options.json) {
            out.push_back({{"id", run.id},
                           {"uid", run.uid},
                           {"op", run.opName},
                           {"state", toString(run.state)},
                           {"seed", run.seed},
                           {"candidates", candidates},
                           {"bestSpeedup", best},
                           {"promptTokens", cost.promptTokens},
                           {"completionTokens", cost.completionTokens},
                           {"cost", cost.cost},
                           {"createdAt", isoUtc(run.createdAtMs)}});
            continue;
        }
        table.addRow({std::to_string(run.id), run.opName, toString(run.state), std::to_string(run.seed),
                      std::to_string(candidates), best > 0 ? formatSpeedup(best) : "-", isoUtc(run.createdAtMs)});
        if (cost.candidates > 0) {
            std::ostringstream note;
            note << cost.candidates << " candidate(s) from models or commands: " << cost.promptTokens << " prompt + "
                 << cost.completionTokens << " completion tokens, estimated cost " << cost.cost;
            table.addNote(note.str());
        }
    }
    if (options.json)
        std::cout << out.dump(2) << '\n';
    else
        table.print(std::cout);
    return Ok;
}

} // namespace

void addResultCommands(CLI::App &app, Action &action)
{
    auto options = std::make_shared<ResultOptions>();
    auto *best = app.add_subcommand(
        "best", "The fastest verified kernel per op and GPU (rejected and impossible ones excluded)");
    best->add_option("op", options->op, "Only this op");
    best->add_option("--gpu", options->gpu, "Only this GPU (exact name)");
    addArchiveOption(*best, options->archive);
    best->add_flag("--json", options->json, "Print JSON");
    best->callback([&action, options] { action = [options] { return runBest(*options); }; });

    auto *runs = app.add_subcommand("runs", "List the searches in the archive");
    runs->add_option("--op", options->op, "Only runs of this op");
    addArchiveOption(*runs, options->archive);
    runs->add_flag("--json", options->json, "Print JSON");
    runs->callback([&action, options] { action = [options] { return runRuns(*options); }; });
}

} // namespace kx::cli
