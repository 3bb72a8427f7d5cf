// kx best [OP], kx runs
#include "commands.h"
#include "format.h"

#include "core/archive/archive.h"
#include "core/util/clock.h"

#include <nlohmann/json.hpp>

#include <iostream>

namespace kx::cli {
namespace {

struct ResultOptions
{
    std::string archive;
    std::string op;
    std::string gpu;
    bool json = false;
};

int runBest(const ResultOptions &options)
{
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const auto best = archive->bestKernels(options.op, options.gpu);
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &kernel : best)
            out.push_back({{"op", kernel.opName},
                           {"gpu", kernel.gpuName},
                           {"candidate", kernel.candidateId},
                           {"speedup", kernel.speedup},
                           {"medianMs", kernel.medianMs},
                           {"baselineMs", kernel.baselineMs}});
        std::cout << out.dump(2) << '\n';
        return Ok;
    }
    if (best.empty()) {
        std::cout << "no correct kernel" << (options.op.empty() ? "" : " for " + options.op)
                  << (options.gpu.empty() ? "" : " on " + options.gpu) << " in " << archive->path() << '\n';
        return options.op.empty() ? Ok : Failure;
    }
    std::cout << column("OP", 32) << column("GPU", 26) << column("CANDIDATE", 14) << column("SPEEDUP", 10)
              << column("KERNEL", 14) << "EAGER\n";
    for (const auto &kernel : best)
        std::cout << column(kernel.opName, 32) << column(kernel.gpuName, 26) << column(shortId(kernel.candidateId), 14)
                  << column(formatSpeedup(kernel.speedup), 10) << column(formatMs(kernel.medianMs), 14)
                  << formatMs(kernel.baselineMs) << '\n';
    return Ok;
}

int runRuns(const ResultOptions &options)
{
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const auto runs = archive->runs(options.op);
    nlohmann::json out = nlohmann::json::array();
    if (!options.json)
        std::cout << column("RUN", 6) << column("OP", 32) << column("STATE", 11) << column("SEED", 8)
                  << column("CANDIDATES", 12) << column("BEST", 9) << "STARTED\n";
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
        if (options.json) {
            out.push_back({{"id", run.id},
                           {"uid", run.uid},
                           {"op", run.opName},
                           {"state", toString(run.state)},
                           {"seed", run.seed},
                           {"candidates", candidates},
                           {"bestSpeedup", best},
                           {"createdAt", isoUtc(run.createdAtMs)}});
            continue;
        }
        std::cout << column(std::to_string(run.id), 6) << column(run.opName, 32) << column(toString(run.state), 11)
                  << column(std::to_string(run.seed), 8) << column(std::to_string(candidates), 12)
                  << column(best > 0 ? formatSpeedup(best) : "-", 9) << isoUtc(run.createdAtMs) << '\n';
    }
    if (options.json)
        std::cout << out.dump(2) << '\n';
    return Ok;
}

} // namespace

void addResultCommands(CLI::App &app, Action &action)
{
    auto options = std::make_shared<ResultOptions>();
    auto *best = app.add_subcommand("best", "The fastest verified kernel per op and GPU (rejected and impossible ones excluded)");
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
