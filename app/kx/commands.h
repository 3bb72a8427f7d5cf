#pragma once

#include "exitcodes.h"

#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/plan/nvrtccompiler.h"

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kx {
class Archive;
enum class ArchiveMode;
} // namespace kx

namespace kx::cli {

/// A registered command sets its action here; main runs the one that was parsed.
using Action = std::function<int()>;

/// Adds -a/--archive to a command.
void addArchiveOption(CLI::App &command, std::string &path);
/// Opens the archive at path (empty: the default archive) or prints why not to stderr (nullptr).
std::unique_ptr<Archive> openArchiveOrReport(const std::string &path, ArchiveMode mode);
/// The full id of the candidate an id or unique prefix names, or prints why there is none (nullopt).
std::optional<std::string> resolveCandidateOrReport(const Archive &archive, const std::string &idOrPrefix);
/// A candidate with the op it was made for.
struct CandidateWithOp
{
    Candidate candidate;
    Op op;
};
/// The candidate an id or unique prefix names, with its op, or prints why there is none (nullopt; *exitCode is
/// Failure for an unknown id, BadInput for an archive that lacks the candidate's op).
std::optional<CandidateWithOp> candidateWithOpOrReport(const Archive &archive, const std::string &idOrPrefix,
                                                       int &exitCode);

void addArchiveCommands(CLI::App &app, Action &action);     ///< kx archive info|list|show|export|import
void addOpCommands(CLI::App &app, Action &action);          ///< kx ops, kx translate OP
void addSearchCommands(CLI::App &app, Action &action);      ///< kx search OP, kx resume RUN
void addResultCommands(CLI::App &app, Action &action);      ///< kx best, kx runs
void addCompileCommand(CLI::App &app, Action &action);      ///< kx compile FILE.cu
void addWorkerCommand(CLI::App &app, Action &action);       ///< kx worker [--device N]
void addKernelBenchCommands(CLI::App &app, Action &action); ///< kx import FILE.py, kx coverage DIR
void addProfileCommands(CLI::App &app, Action &action);     ///< kx profile ID (and its child, kx profile-launch)
void addVerdictCommand(CLI::App &app, Action &action);      ///< kx verdict ID --accept|--reject|--retract
void addExportCommand(CLI::App &app, Action &action);       ///< kx export ID -o DIR

/// How a problem file's Python runs while it is imported: in the sandbox or not, and for how long and how much.
struct ImportLimits
{
    bool sandbox = true; ///< false: --no-sandbox
    double timeoutSeconds = 300;
    double maxMemoryMb = 0;     ///< 0: 8 GiB, or three times the inputs allowed when that is more.
    double maxMegabytes = 2048; ///< Largest total size of a problem's inputs and parameters (MB).
};

/// --no-sandbox; with all set, --timeout and --max-memory-mb (import and coverage, which have their own --max-mb);
/// without, --max-mb (search: a problem file given by path is imported first).
void addImportLimitOptions(CLI::App &command, ImportLimits &limits, bool all = true);

/// A built-in op by name, an op stored in the archive (an imported problem, e.g. "kb/19_ReLU"), or a KernelBench
/// problem file (.py) imported; else why not (already printed; its kind says how to exit).
Expected<Op> resolveOp(const std::string &nameOrFile, const std::string &archivePath, const ImportLimits &limits = {});

/// --precision, --no-inductor, --baseline-every, --baseline-minutes: what candidates are compared with.
void addBaselineOptions(CLI::App &command, EvalSettings &settings);
/// --compile-timeout, --compile-memory: how long and how large one NVRTC compile may get.
void addCompileLimitOptions(CLI::App &command, CompileOptions &options);

} // namespace kx::cli
