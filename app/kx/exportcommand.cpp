// kx export ID -o DIR: an accepted kernel as a folder usable outside Kernel Explorer, as the GUI's Export Kernel
// writes it (core/export/kernelexport.h).
#include "commands.h"

#include "core/archive/archive.h"
#include "core/export/kernelexport.h"

#include <filesystem>
#include <iostream>

namespace kx::cli {
namespace {

namespace fs = std::filesystem;

struct ExportOptions
{
    std::string archive;
    std::string id;
    std::string output;
    bool force = false;
};

int runExport(const ExportOptions &options)
{
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
    if (!archive)
        return BadInput;
    int exitCode = Ok;
    const auto found = candidateWithOpOrReport(*archive, options.id, exitCode);
    if (!found)
        return exitCode;
    const Candidate &candidate = found->candidate;
    const Op &op = found->op;
    const auto verdict = archive->currentVerdict(candidate.id);
    const auto written = exportKernel(candidate, op, verdict, options.output,
                                      options.force ? ExistingFolder::ReplaceFiles : ExistingFolder::Refuse);
    if (!written) {
        std::cerr << "kx: " << written.error().message << '\n';
        const std::string shortId = candidate.id.substr(0, 12);
        std::error_code error;
        if (!isExportable(verdict))
            std::cerr << "kx: a reviewer accepts it with: kx verdict " << shortId << " --accept\n";
        else if (!options.force && fs::exists(fs::path(options.output) / exportFolderName(candidate, op), error))
            std::cerr << "kx: --force replaces the exported files in it\n";
        // A plan the export cannot launch is bad input (3); a refusal or a failed write is a failure (1).
        return written.error().kind == ErrorKind::BadInput ? BadInput : Failure;
    }
    std::cout << "exported " << candidate.id.substr(0, 12) << " to " << written->folder << '\n';
    for (const std::string &file : written->files)
        std::cout << "  " << file << '\n';
    return Ok;
}

} // namespace

void addExportCommand(CLI::App &app, Action &action)
{
    auto options = std::make_shared<ExportOptions>();
    auto *command = app.add_subcommand(
        "export", "Write an accepted kernel into a new folder <op>_<short id> for use outside Kernel Explorer, as the "
                  "GUI's Export Kernel does: kernel.cu, launch_plan.json and extension.cpp (a PyTorch C++ extension "
                  "that launches it). Prints the folder and the files. Refused: kernels without an accepted verdict "
                  "(exit 1), plans the extension cannot launch, such as plans with library steps (exit 3), and a "
                  "folder of that name that holds anything (exit 1, unless --force).");
    addArchiveOption(*command, options->archive);
    command->add_option("id", options->id, "Candidate id or a unique prefix (at least 4 characters)")->required();
    command->add_option("-o,--output", options->output, "The folder to put the export folder in (created when missing)")
        ->required();
    command->add_flag("--force", options->force,
                      "Replace the three files of an existing export folder (other files in it stay)");
    command->callback([&action, options] { action = [options] { return runExport(*options); }; });
}

} // namespace kx::cli
