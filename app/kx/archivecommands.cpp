// kx archive info|list|show|export|import
#include "commands.h"
#include "format.h"
#include "profileformat.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"
#include "core/archive/archivelocation.h"
#include "core/domain/domainjson.h"
#include "core/util/clock.h"
#include "core/util/jsonparse.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>

namespace kx::cli {
namespace {

struct ArchiveOptions
{
    std::string path;
    bool json = false;
};

std::string verdictText(const std::optional<bool> &accepted)
{
    if (!accepted)
        return "-";
    return *accepted ? "accepted" : "rejected";
}

int runInfo(const ArchiveOptions &options)
{
    auto archive = openArchiveOrReport(options.path, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const ArchiveInfo info = archive->info();
    if (options.json) {
        std::cout << nlohmann::json{{"path", info.path},
                                    {"schemaVersion", info.schemaVersion},
                                    {"createdBy", info.createdBy},
                                    {"ops", info.ops},
                                    {"runs", info.runs},
                                    {"candidates", info.candidates},
                                    {"evaluations", info.evaluations},
                                    {"verdicts", info.verdicts},
                                    {"gpus", info.gpus},
                                    {"fileBytes", info.fileBytes}}
                         .dump(2)
                  << '\n';
        return Ok;
    }
    std::cout << "archive:      " << info.path << '\n'
              << "schema:       " << info.schemaVersion << '\n'
              << "created by:   " << info.createdBy << '\n'
              << "ops:          " << info.ops << '\n'
              << "runs:         " << info.runs << '\n'
              << "candidates:   " << info.candidates << '\n'
              << "evaluations:  " << info.evaluations << '\n'
              << "verdicts:     " << info.verdicts << '\n'
              << "gpus:         " << info.gpus << '\n';
    return Ok;
}

struct ListOptions
{
    CandidateFilter filter;
    std::int64_t runId = 0;
};

int runList(const ArchiveOptions &options, ListOptions list)
{
    auto archive = openArchiveOrReport(options.path, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    if (list.runId > 0)
        list.filter.runId = list.runId;
    const auto rows = archive->candidateSummaries(list.filter);
    if (options.json) {
        nlohmann::json out = nlohmann::json::array();
        for (const auto &row : rows)
            out.push_back({{"id", row.id},
                           {"op", row.opName},
                           {"origin", toString(row.origin)},
                           {"operator", row.operatorName},
                           {"status", row.bestStatus ? toString(*row.bestStatus) : "unevaluated"},
                           {"gpu", row.bestGpu},
                           {"speedup", row.bestSpeedup},
                           {"medianMs", row.bestMedianMs},
                           {"flags", row.flagCount},
                           {"verdict", verdictText(row.accepted)}});
        std::cout << out.dump(2) << '\n';
        return Ok;
    }
    std::printf("%-12s %-24s %-10s %-14s %9s %10s %5s %-9s\n", "ID", "OP", "ORIGIN", "STATUS", "SPEEDUP", "MEDIAN_MS",
                "FLAGS", "VERDICT");
    for (const auto &row : rows) {
        const std::string status = row.bestStatus ? toString(*row.bestStatus) : "unevaluated";
        const bool correct = row.bestStatus == EvalStatus::Correct;
        char median[32] = "-";
        if (correct)
            std::snprintf(median, sizeof median, "%.4f", row.bestMedianMs);
        std::printf("%-12s %-24s %-10s %-14s %9s %10s %5d %-9s\n", row.id.substr(0, 12).c_str(), row.opName.c_str(),
                    toString(row.origin), status.c_str(), correct ? formatSpeedup(row.bestSpeedup).c_str() : "-",
                    median, row.flagCount, verdictText(row.accepted).c_str());
    }
    std::printf("%zu candidate(s)\n", rows.size());
    return Ok;
}

int runShow(const ArchiveOptions &options, const std::string &idPrefix)
{
    auto archive = openArchiveOrReport(options.path, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    const auto id = resolveCandidateOrReport(*archive, idPrefix);
    if (!id)
        return Failure;
    const Candidate candidate = *archive->candidate(*id);
    const auto evaluations = archive->evaluations(*id);
    const auto verdicts = archive->verdicts(*id);
    const auto provenance = archive->provenance(*id);
    const auto profiles = archive->profiles(*id);
    if (options.json) {
        nlohmann::json out = candidate;
        out["evaluations"] = evaluations;
        out["verdicts"] = verdicts;
        out["profiles"] = profiles;
        if (provenance)
            out["provenance"] = {{"proposer", provenance->proposer},
                                 {"model", provenance->model},
                                 {"prompt", provenance->prompt},
                                 {"promptSha256", provenance->promptSha256},
                                 {"response", provenance->response},
                                 {"promptTokens", provenance->promptTokens},
                                 {"completionTokens", provenance->completionTokens},
                                 {"cost", provenance->cost},
                                 {"note", provenance->note}};
        std::cout << out.dump(2) << '\n';
        return Ok;
    }
    std::cout << "candidate:   " << candidate.id << '\n'
              << "op:          " << candidate.opName << '\n'
              << "origin:      " << toString(candidate.origin) << " (" << candidate.operatorName << ")\n"
              << "created:     " << isoUtc(candidate.createdAtMs) << '\n';
    for (const auto &parent : candidate.parentIds)
        std::cout << "parent:      " << parent << '\n';
    if (!candidate.description.empty())
        std::cout << "description: " << candidate.description << '\n';
    if (provenance) {
        std::cout << "proposer:    " << provenance->proposer
                  << (provenance->model.empty() ? "" : " (" + provenance->model + ")") << '\n';
        if (provenance->promptTokens || provenance->completionTokens)
            std::cout << "tokens:      " << provenance->promptTokens << " prompt + " << provenance->completionTokens
                      << " completion, estimated cost " << provenance->cost << '\n';
        if (!provenance->promptSha256.empty())
            std::cout << "prompt:      sha256 " << provenance->promptSha256 << " (--json shows prompt and answer)\n";
        if (!provenance->note.empty())
            std::cout << "note:        " << provenance->note << '\n';
    }
    for (const auto &evaluation : evaluations) {
        std::cout << "\nevaluation on " << evaluation.gpu.name << ": " << toString(evaluation.status) << " ["
                  << toString(evaluation.precision) << "]";
        const auto overInductor = speedupOverInductor(evaluation);
        if (evaluation.status == EvalStatus::Correct)
            std::cout << ", " << formatSpeedup(evaluation.speedup) << " vs eager"
                      << (overInductor ? ", " + formatSpeedup(*overInductor) + " vs Inductor" : std::string()) << " ("
                      << standingText(evaluation.speedup, overInductor) << ")";
        std::cout << '\n';
        if (!evaluation.message.empty())
            std::cout << "  " << evaluation.message << '\n';
        if (evaluation.status == EvalStatus::Correct)
            std::cout << "  kernel " << formatMs(evaluation.timing.medianMs) << " (" << evaluation.timing.runs
                      << " runs), max error " << evaluation.correctness.maxAbsError << " abs, "
                      << evaluation.correctness.maxRelError << " rel\n";
        if (evaluation.baselines.empty())
            std::cout << "  baselines: eager " << formatMs(evaluation.baseline.medianMs)
                      << " (timed with the kernel; no Inductor measurement in this older evaluation)\n";
        for (const auto &baseline : evaluation.baselines) {
            std::cout << "  baseline " << toString(baseline.kind) << " (" << baseline.method << "): ";
            if (baseline.usable())
                std::cout << formatMs(baseline.timing.medianMs) << " (" << baseline.timing.runs << " runs, drift "
                          << baseline.driftPercent << "%), max error " << baseline.maxAbsError << " abs\n";
            else
                std::cout << "none: " << baseline.error << '\n';
        }
        for (const auto &flag : evaluation.flags)
            std::cout << "  flag " << flag.kind << ": " << flag.evidence << '\n';
    }
    for (const auto &profile : profiles) {
        std::cout << '\n';
        printProfile(std::cout, profile);
    }
    for (const auto &verdict : verdicts)
        std::cout << "\nverdict: " << (verdict.accepted ? "accepted" : "rejected") << " (" << verdict.reasonCode << ")"
                  << (verdict.retracted ? " [retracted]" : "") << (verdict.note.empty() ? "" : ": ") << verdict.note
                  << '\n';
    std::cout << "\n--- source ---\n" << candidate.source << "\n--- launch plan ---\n" << candidate.launchPlan << '\n';
    return Ok;
}

int runExport(const ArchiveOptions &options, const std::string &output, const std::vector<std::string> &ops)
{
    auto archive = openArchiveOrReport(options.path, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    for (const auto &name : ops)
        if (!archive->op(name)) {
            std::cerr << "kx: no op named " << name << " in " << archive->path() << '\n';
            return Failure;
        }
    const std::string text = exportArchive(*archive, ops).dump(2) + "\n";
    if (output.empty() || output == "-") {
        std::cout << text;
        return Ok;
    }
    // Write next to the target and rename, so a failed export never leaves half a file.
    const std::string partial = output + ".partial";
    {
        std::ofstream file(partial, std::ios::binary | std::ios::trunc);
        file << text;
        if (!file.flush()) {
            std::cerr << "kx: cannot write " << output << '\n';
            std::remove(partial.c_str());
            return Failure;
        }
    }
    if (std::rename(partial.c_str(), output.c_str()) != 0) {
        std::cerr << "kx: cannot write " << output << '\n';
        return Failure;
    }
    return Ok;
}

// The text of an export file (or of standard input for "-"), or why it cannot be read.
Expected<std::string> readExport(const std::string &input)
{
    if (input == "-") {
        std::ostringstream text;
        text << std::cin.rdbuf();
        return text.str();
    }
    std::error_code error;
    if (std::filesystem::is_directory(input, error))
        return Error::badInput("cannot read " + input + ": it is a folder, not an export file");
    std::ifstream file(input, std::ios::binary);
    if (!file)
        return Error::badInput("cannot read " + input + ": " + std::strerror(errno));
    std::ostringstream text;
    text << file.rdbuf();
    if (file.bad())
        return Error::badInput("cannot read " + input + ": " + std::strerror(errno));
    return text.str();
}

// Removes an archive file this command created (and its companions), so a failed import leaves nothing new.
void removeNewArchive(const std::string &path)
{
    for (const std::string &file : {path, path + "-wal", path + "-shm", path + "-journal"})
        std::remove(file.c_str());
}

int runImport(const ArchiveOptions &options, const std::string &input)
{
    const std::string name = input == "-" ? "standard input" : input;
    const auto text = readExport(input);
    if (!text) {
        std::cerr << "kx: " << text.error().message << '\n';
        return exitCodeFor(text.error());
    }
    const auto document = parseJson(*text);
    if (!document) { // the file given is not JSON: bad input, whatever the parser calls its complaint
        std::cerr << "kx: " << name << " is not valid JSON: " << document.error().message << '\n';
        return exitCodeFor(Error::badInput(document.error().message));
    }
    // Checked before the archive is opened, so that a file that is no export creates no archive.
    if (const auto header = checkExportHeader(*document); !header) {
        std::cerr << "kx: " << name << ": " << header.error().message << " (nothing was imported)\n";
        return exitCodeFor(header.error());
    }
    const std::string path = options.path.empty() ? defaultArchivePath() : options.path;
    const bool existed = std::filesystem::exists(path);
    auto archive = openArchiveOrReport(path, ArchiveMode::ReadWrite);
    if (!archive)
        return BadInput;
    Expected<ImportStats> stats = Error{};
    try {
        stats = importArchive(*archive, *document);
    } catch (const std::exception &error) { // the archive failed (busy, disk full), not the input
        archive.reset();
        if (!existed)
            removeNewArchive(path);
        std::cerr << "kx: cannot import " << name << ": " << error.what() << " (nothing was imported)\n";
        return Failure;
    }
    if (!stats) {
        archive.reset();
        if (!existed)
            removeNewArchive(path);
        std::cerr << "kx: " << name << ": " << stats.error().message << " (nothing was imported)\n";
        return exitCodeFor(stats.error());
    }
    std::cout << "imported into " << archive->path() << ": " << stats->ops << " op(s), " << stats->runs << " run(s), "
              << stats->candidates << " candidate(s) (" << stats->duplicateCandidates << " already present), "
              << stats->evaluations << " evaluation(s), " << stats->verdicts << " verdict(s)\n";
    return Ok;
}

} // namespace

void addArchiveOption(CLI::App &command, std::string &path)
{
    command.add_option("-a,--archive", path, "Archive file (default: $KX_ARCHIVE or the user's data folder)");
}

std::unique_ptr<Archive> openArchiveOrReport(const std::string &path, ArchiveMode mode)
{
    const std::string file = path.empty() ? defaultArchivePath() : path;
    if (mode == ArchiveMode::ReadWrite && !ensureParentFolder(file)) {
        std::cerr << "kx: cannot create the folder of " << file << '\n';
        return nullptr;
    }
    auto archive = Archive::open(file, mode);
    if (!archive) {
        std::cerr << "kx: " << archive.error().message << '\n';
        return nullptr;
    }
    return std::move(*archive);
}

std::optional<std::string> resolveCandidateOrReport(const Archive &archive, const std::string &idOrPrefix)
{
    auto id = archive.resolveCandidateId(idOrPrefix);
    if (!id) {
        std::cerr << "kx: " << id.error().message << '\n';
        return std::nullopt;
    }
    return std::move(*id);
}

std::optional<CandidateWithOp> candidateWithOpOrReport(const Archive &archive, const std::string &idOrPrefix,
                                                       int &exitCode)
{
    const auto id = resolveCandidateOrReport(archive, idOrPrefix);
    if (!id) {
        exitCode = Failure;
        return std::nullopt;
    }
    CandidateWithOp found{*archive.candidate(*id), {}};
    auto op = archive.op(found.candidate.opName);
    if (!op) {
        std::cerr << "kx: the op " << found.candidate.opName << " of " << found.candidate.id
                  << " is not in the archive\n";
        exitCode = BadInput;
        return std::nullopt;
    }
    found.op = std::move(*op);
    return found;
}

void addArchiveCommands(CLI::App &app, Action &action)
{
    auto *archive = app.add_subcommand("archive", "Inspect, export and import an archive");
    archive->require_subcommand(1);
    auto options = std::make_shared<ArchiveOptions>();

    auto *info = archive->add_subcommand("info", "Summary of an archive");
    addArchiveOption(*info, options->path);
    info->add_flag("--json", options->json, "Print JSON");
    info->callback([&action, options] { action = [options] { return runInfo(*options); }; });

    auto list = std::make_shared<ListOptions>();
    auto *listCommand = archive->add_subcommand("list", "List candidates with their best result");
    addArchiveOption(*listCommand, options->path);
    listCommand->add_flag("--json", options->json, "Print JSON");
    listCommand->add_option("--op", list->filter.opName, "Only this op");
    listCommand->add_option("--run", list->runId, "Only candidates of this run id");
    listCommand->add_option("--gpu", list->filter.gpuName, "Only evaluations on this GPU (exact name)");
    listCommand->add_flag("--unreviewed", list->filter.onlyUnreviewed, "Only candidates without a verdict");
    listCommand->add_flag("--flagged", list->filter.onlyFlagged, "Only candidates with flags");
    listCommand->add_option("--limit", list->filter.limit, "At most this many rows")->check(CLI::NonNegativeNumber);
    listCommand->callback([&action, options, list] { action = [options, list] { return runList(*options, *list); }; });

    auto id = std::make_shared<std::string>();
    auto *show = archive->add_subcommand("show", "Show one candidate: source, plan, evaluations, verdicts");
    addArchiveOption(*show, options->path);
    show->add_flag("--json", options->json, "Print JSON");
    show->add_option("id", *id, "Candidate id or a unique prefix (at least 4 characters)")->required();
    show->callback([&action, options, id] { action = [options, id] { return runShow(*options, *id); }; });

    auto output = std::make_shared<std::string>();
    auto ops = std::make_shared<std::vector<std::string>>();
    auto *exportCommand = archive->add_subcommand("export", "Export the archive (or some ops) as JSON");
    addArchiveOption(*exportCommand, options->path);
    exportCommand->add_option("-o,--output", *output, "Output file (default: standard output)");
    exportCommand->add_option("--op", *ops, "Only these ops (repeatable)");
    exportCommand->callback([&action, options, output, ops] {
        action = [options, output, ops] { return runExport(*options, *output, *ops); };
    });

    auto input = std::make_shared<std::string>();
    auto *importCommand = archive->add_subcommand("import", "Import a JSON export into the archive (all or nothing)");
    addArchiveOption(*importCommand, options->path);
    importCommand->add_option("file", *input, "Export file, or - for standard input")->required();
    importCommand->callback(
        [&action, options, input] { action = [options, input] { return runImport(*options, *input); }; });
}

} // namespace kx::cli
