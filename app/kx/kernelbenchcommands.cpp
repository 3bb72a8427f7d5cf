// kx import FILE.py, kx coverage DIR: KernelBench-format problem files as ops.
#include "commands.h"
#include "coveragetable.h"
#include "format.h"

#include "core/archive/archive.h"
#include "core/archive/archivelocation.h"
#include "core/baseline/inductorpackager.h"
#include "core/baseline/packagebuildqueue.h"
#include "core/codegen/oprecipe.h"
#include "core/kernelbench/problemimporter.h"
#include "core/ops/builtinops.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/runbest.h"
#include "core/search/searchsession.h"
#include "core/search/templateproposer.h"
#include "core/util/executablepath.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iomanip>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace kx::cli {
namespace {

struct ImportCommandOptions
{
    std::string file;
    std::string archive;
    int seed = 0;
    std::string device = "cpu";
    double maxMegabytes = 2048;
    bool keepUntranslated = false;
    ImportLimits limits;
};

ImportOptions limitedImport(const ImportLimits &limits, std::int64_t maxBytes = ImportOptions().maxBytes)
{
    ImportOptions options;
    options.maxBytes = maxBytes;
    options.sandbox = limits.sandbox;
    options.timeout = std::chrono::seconds(std::max<std::int64_t>(1, std::int64_t(std::ceil(limits.timeoutSeconds))));
    // Unless given, the cap grows with the inputs allowed: they are made in host memory first.
    options.memoryBytes = limits.maxMemoryMb > 0 ? std::int64_t(limits.maxMemoryMb * double(1 << 20))
                                                 : std::max(options.memoryBytes, 3 * maxBytes);
    return options;
}

ImportOptions importOptions(int seed, const std::string &device, double maxMegabytes, const ImportLimits &limits)
{
    ImportOptions options = limitedImport(limits, std::int64_t(maxMegabytes * 1e6));
    options.seed = seed;
    options.device = device;
    return options;
}

std::string shapeText(const std::vector<std::string> &shape)
{
    std::string text = "[";
    for (std::size_t i = 0; i < shape.size(); ++i)
        text += (i ? ", " : "") + shape[i];
    return text + "]";
}

void printImported(const ImportedProblem &imported)
{
    const Op &op = imported.op;
    std::cout << "op: " << op.name << '\n' << "description: " << op.description << '\n';
    for (const auto *tensors : {&op.inputs, &op.outputs})
        for (const auto &tensor : *tensors)
            std::cout << (tensors == &op.inputs ? "input:  " : "output: ") << tensor.name << ' '
                      << shapeText(tensor.shape) << ' ' << tensor.dtype << '\n';
    for (std::size_t i = 0; i < op.shapeSets.size(); ++i) {
        std::cout << "shape set " << i + 1 << ":";
        for (const auto &[symbol, value] : op.shapeSets[i])
            std::cout << ' ' << symbol << '=' << value;
        std::cout << '\n';
    }
    if (imported.translated())
        std::cout << "recipe: " << (recipeOf(op) ? recipeOf(op)->family : std::string("?")) << '\n';
    else
        std::cout << "recipe: none (" << imported.translationError << ")\n";
    for (const auto &note : imported.notes)
        std::cout << "note: " << note << '\n';
}

int runImport(const ImportCommandOptions &options)
{
    std::cerr << "importing " << options.file << " ..." << std::endl;
    const auto imported =
        ProblemImporter(importOptions(options.seed, options.device, options.maxMegabytes, options.limits))
            .importFile(options.file);
    if (!imported) {
        std::cerr << "kx: " << imported.error().message << '\n';
        return exitCodeFor(imported.error());
    }
    printImported(*imported);
    if (!imported->translated() && !options.keepUntranslated) {
        std::cerr << "kx: the templates cannot generate " << imported->op.name << ": " << imported->translationError
                  << " (nothing stored; --keep-untranslated stores it anyway)\n";
        return Failure;
    }
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadWrite);
    if (!archive)
        return BadInput;
    auto tx = archive->begin();
    archive->putOp(tx, imported->op, imported->op.referenceSource);
    tx.commit();
    std::cout << "stored " << imported->op.name << " in " << archive->path() << '\n';
    return Ok;
}

std::string compileTranslation(const Op &op)
{
    const auto candidate = translateOp(op);
    if (!candidate)
        return candidate.error().message;
    if (!NvrtcCompiler::available())
        return "built without NVRTC: not compiled";
    const auto compiled = NvrtcCompiler().compile(candidate->source, CompileOptions());
    return compiled.ok ? std::string() : "NVRTC: " + compiled.error;
}

std::string selfExecutable()
{
    const std::string path = executablePath();
    return path.empty() ? std::string("kx") : path;
}

struct CoverageOptions
{
    std::string dir;
    std::string archive;
    double budgetSeconds = 60;
    std::string markdown;
    std::string csv;
    bool gpu = false;
    std::string device = "cpu"; ///< Where the helper traces the models.
    double maxMegabytes = 2048;
    int jobs = 0;        ///< Imports at once; 0: half the hardware threads.
    bool resume = false; ///< Keep the finished rows of the CSV file from an earlier run.
    EvalSettings eval;   ///< Precision policy and baselines of the searches.
    ImportLimits limits;
};

// Inductor packages of the ops to search (todo: their indices in order), built batch by batch as the searches reach
// them, several at once (each is a CPU-bound Python process), into the package cache where each search's
// preparation then finds its own: the first search starts after one batch, not after every build, and no build
// runs on the GPU while a search times there. Null without an Inductor baseline.
std::unique_ptr<PackageBuildQueue> startInductorBuilds(const CoverageOptions &options, const SearchSession &session,
                                                       const std::vector<std::size_t> &todo, const std::vector<Op> &ops)
{
    if (!options.eval.inductorBaseline || todo.empty())
        return nullptr;
    const auto workers = session.workers();
    const auto builder =
        std::find_if(workers.begin(), workers.end(), [](const WorkerStatus &w) { return !w.arch.empty(); });
    if (builder == workers.end())
        return nullptr;
    InductorPackager::Options packagerOptions;
    packagerOptions.sandbox = options.limits.sandbox;
    const int jobs = options.jobs > 0 ? options.jobs : std::max(1, int(std::thread::hardware_concurrency()) / 2);
    return std::make_unique<PackageBuildQueue>(
        todo.size(), jobs,
        [packager = InductorPackager(packagerOptions), arch = builder->arch, device = builder->device, todo,
         &ops](std::size_t k) {
            return packager.prepare(ops[todo[k]], arch, device, {selfExecutable(), "baseline-runner"});
        });
}

// A short search per translated op on one set of workers; fills verified, the times and the speedups.
int searchRows(const CoverageOptions &options, std::vector<CoverageRow> &rows, const std::vector<Op> &ops,
               const std::function<bool()> &save)
{
    const std::string archivePath = options.archive.empty() ? defaultArchivePath() : options.archive;
    if (!ensureParentFolder(archivePath)) {
        std::cerr << "kx: cannot create the folder of " << archivePath << '\n';
        return BadInput;
    }
    std::shared_ptr<std::promise<void>> finished;
    std::mutex mutex;
    SearchSessionOptions sessionOptions;
    sessionOptions.archive = ArchiveRef::readWrite(archivePath);
    sessionOptions.workerCommand = {selfExecutable(), "worker"};
    sessionOptions.settings.budget.seconds = options.budgetSeconds;
    sessionOptions.settings.eval = options.eval;
    sessionOptions.inductor.sandbox = options.limits.sandbox;
    SearchSession session(std::move(sessionOptions), [&](const SearchEvent &event) {
        std::lock_guard lock(mutex);
        if (event.kind == SearchEvent::Kind::Finished && finished)
            finished->set_value();
    });
    std::cerr << "starting GPU workers ..." << std::endl;
    if (const auto started = session.startWorkers(); !started) {
        std::cerr << "kx: " << (started.error().kind == ErrorKind::NoGpu ? "no GPU to search on: " : "")
                  << started.error().message << '\n';
        return exitCodeFor(started.error());
    }
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (rows[i].translated && !rows[i].searched)
            todo.push_back(i);
    const auto builds = startInductorBuilds(options, session, todo, ops);
    for (std::size_t k = 0; k < todo.size(); ++k) {
        const std::size_t i = todo[k];
        auto &row = rows[i];
        if (builds) {
            const InductorPreparation prepared = builds->waitFor(k);
            std::cerr << "Inductor baseline of " << ops[i].name << ": "
                      << (prepared.package
                              ? "package ready"
                              : singleLine(prepared.settings.details.empty() ? prepared.settings.unavailable
                                                                             : prepared.settings.details))
                      << std::endl;
        }
        std::future<void> done;
        {
            std::lock_guard lock(mutex);
            finished = std::make_shared<std::promise<void>>();
            done = finished->get_future();
        }
        std::cerr << "searching " << row.op << " ..." << std::endl;
        const auto runId = session.start(ops[i]);
        if (!runId) {
            row.note = runId.error().message;
            continue;
        }
        done.wait();
        session.wait();
        row.searched = true;
        auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
        if (!archive)
            continue;
        CandidateFilter filter;
        filter.runId = *runId;
        const auto summaries = (*archive)->candidateSummaries(filter);
        for (const auto &summary : summaries)
            if (summary.bestStatus == EvalStatus::Correct && summary.flagCount == 0)
                row.verified = true;
        row.precision = toString(options.eval.precision);
        // The speedup as the search ranks: kernel time against the median of the run's eager times.
        if (const auto best = bestOfRun(**archive, *runId); best && row.verified) {
            row.speedup = best->speedup;
            row.bestMs = best->kernelMs;
            row.eagerMs = best->kernelMs * best->speedup;
            row.inductorMs = best->inductorMs.value_or(0);
            row.inductorSpeedup = best->speedupOverInductor().value_or(0);
            if (!best->inductorMs && !best->inductorNote.empty())
                row.note = best->inductorNote;
        }
        // Why the first candidate failed says most about what the translation gets wrong.
        for (const auto &summary : summaries)
            if (!row.verified && summary.origin == Origin::Translated)
                row.note = unverifiedNote((*archive)->evaluations(summary.id), summary.id);
        save();
    }
    return Ok;
}

int runCoverage(const CoverageOptions &options)
{
    std::error_code error;
    if (!std::filesystem::is_directory(options.dir, error)) {
        std::cerr << "kx: " << options.dir << " is not a folder\n";
        return BadInput;
    }
    std::vector<std::filesystem::path> files;
    for (const auto &entry : std::filesystem::recursive_directory_iterator(options.dir, error))
        if (entry.is_regular_file() && entry.path().extension() == ".py")
            files.push_back(entry.path());
    // KernelBench numbers its problems ("2_...", "10_..."): order by that number, then by name.
    const auto number = [](const std::filesystem::path &file) {
        const std::string name = file.filename().string();
        std::size_t digits = 0;
        while (digits < name.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(name[digits])))
            ++digits;
        return digits ? std::stol(name.substr(0, digits)) : -1L;
    };
    std::sort(files.begin(), files.end(), [&](const auto &a, const auto &b) {
        return std::pair(a.parent_path(), number(a)) < std::pair(b.parent_path(), number(b))
               || (std::pair(a.parent_path(), number(a)) == std::pair(b.parent_path(), number(b)) && a < b);
    });
    if (files.empty()) {
        std::cerr << "kx: no .py files in " << options.dir << '\n';
        return BadInput;
    }
    // Each import is a Python process of its own: run several at once.
    const ProblemImporter importer(importOptions(0, options.device, options.maxMegabytes, options.limits));
    std::vector<CoverageRow> rows(files.size());
    std::vector<Op> ops(files.size());
    std::atomic<std::size_t> next = 0;
    std::mutex printing;
    // A resumed run keeps each row that is finished: searched, or (without --gpu, or untranslated) imported.
    const auto earlier = options.resume ? readCoverageCsv(options.csv) : std::map<std::string, CoverageRow>{};
    const auto finished = [&](const CoverageRow &row) {
        return (row.searched || !options.gpu || !row.translated) && row.note.find("out of memory") == std::string::npos;
    };
    const auto importOne = [&](std::size_t i) {
        CoverageRow &row = rows[i];
        row = CoverageRow{};
        std::error_code unrelated;
        row.file = std::filesystem::relative(files[i], options.dir, unrelated).string();
        if (const auto found = earlier.find(row.file); found != earlier.end() && finished(found->second)) {
            row = found->second;
            return;
        }
        const auto imported = importer.importFile(files[i].string());
        if (!imported) {
            row.note = imported.error().message;
        } else {
            row.imported = true;
            row.op = imported->op.name;
            ops[i] = imported->op;
            if (!imported->translated()) {
                row.note = imported->translationError;
            } else {
                row.family = recipeOf(imported->op) ? recipeOf(imported->op)->family : "";
                row.note = compileTranslation(imported->op);
                row.translated = row.note.empty();
            }
        }
        std::lock_guard lock(printing);
        std::cerr << "imported " << row.file << ": "
                  << (row.translated ? "translated (" + row.family + ")" : singleLine(row.note)) << std::endl;
    };
    const auto importSome = [&] {
        for (std::size_t i = next++; i < files.size(); i = next++)
            importOne(i);
    };
    const int jobs = options.jobs > 0 ? options.jobs : std::max(1, int(std::thread::hardware_concurrency()) / 2);
    std::vector<std::jthread> importers;
    for (int i = 0; i < std::min<int>(jobs, int(files.size())); ++i)
        importers.emplace_back(importSome);
    importers.clear(); // joins
    // Imports that ran out of GPU memory beside the others get a second chance alone.
    for (std::size_t i = 0; i < rows.size(); ++i)
        if (!rows[i].imported && rows[i].note.find("out of memory") != std::string::npos)
            importOne(i);
    // The tables are written after the imports and again after every search, so a run cut short keeps its rows.
    const auto save = [&]() -> bool {
        if (!options.markdown.empty()) {
            std::ofstream out(options.markdown);
            writeCoverageMarkdown(out, rows, options.gpu);
            if (!out) {
                std::cerr << "kx: cannot write " << options.markdown << '\n';
                return false;
            }
        }
        if (!options.csv.empty()) {
            std::ofstream out(options.csv);
            writeCoverageCsv(out, rows);
            if (!out) {
                std::cerr << "kx: cannot write " << options.csv << '\n';
                return false;
            }
        }
        return true;
    };
    if (!save())
        return Failure;
    if (options.gpu)
        if (const int code = searchRows(options, rows, ops, save); code != Ok)
            return code;
    writeCoverageMarkdown(std::cout, rows, options.gpu);
    if (!save())
        return Failure;
    return Ok;
}

} // namespace

void addImportLimitOptions(CLI::App &command, ImportLimits &limits, bool all)
{
    command.add_flag("!--no-sandbox", limits.sandbox,
                     "Run the problem file's Python (its import, and torch.compile of it for the Inductor baseline) "
                     "without the bubblewrap sandbox (it is code that runs with all your rights: only for files you "
                     "trust)");
    if (!all) {
        command
            .add_option("--max-mb", limits.maxMegabytes,
                        "Largest total size of a problem file's inputs and parameters (MB)")
            ->capture_default_str()
            ->check(CLI::PositiveNumber);
        return;
    }
    command.add_option("--timeout", limits.timeoutSeconds, "Seconds the problem file's Python may run")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command
        .add_option("--max-memory-mb", limits.maxMemoryMb,
                    "Memory the problem file's Python may use (MiB; default: 8192, or three times --max-mb "
                    "when that is more)")
        ->check(CLI::PositiveNumber);
}

Expected<Op> resolveOp(const std::string &nameOrFile, const std::string &archivePath, const ImportLimits &limits)
{
    if (nameOrFile.size() > 3 && nameOrFile.ends_with(".py")) {
        std::cerr << "importing " << nameOrFile << " ..." << std::endl;
        auto imported =
            ProblemImporter(limitedImport(limits, std::int64_t(limits.maxMegabytes * 1e6))).importFile(nameOrFile);
        if (!imported) {
            std::cerr << "kx: " << imported.error().message << '\n';
            return imported.error();
        }
        if (!imported->translated())
            std::cerr << "kx: note: the templates cannot generate " << imported->op.name << ": "
                      << imported->translationError << '\n';
        return std::move(imported->op);
    }
    if (const Op *op = findBuiltInOp(nameOrFile))
        return *op;
    const std::string path = archivePath.empty() ? defaultArchivePath() : archivePath;
    if (std::filesystem::exists(path)) {
        if (auto archive = Archive::open(path, ArchiveMode::ReadOnly))
            if (auto stored = (*archive)->op(nameOrFile))
                return std::move(*stored);
    }
    const Error unknown = Error::badInput("unknown op '" + nameOrFile
                                          + "' (kx ops lists the built-in ones, kx archive "
                                            "list the imported ones; a problem file ends in .py)");
    std::cerr << "kx: " << unknown.message << '\n';
    return unknown;
}

void addBaselineOptions(CLI::App &command, EvalSettings &settings)
{
    static const std::map<std::string, Precision> precisions{
        {"fp32", Precision::Fp32}, {"tf32", Precision::Tf32}, {"kernelbench", Precision::KernelBench}};
    command
        .add_option("--precision", settings.precision,
                    "Precision policy of candidates and baselines: fp32 (no TF32 anywhere, the op's tolerance), "
                    "tf32 (TF32 allowed in candidates, eager and Inductor; tolerance grows with the reduction "
                    "length) or kernelbench (KernelBench's atol = rtol = 1e-2, TF32 allowed)")
        ->transform(CLI::CheckedTransformer(precisions))
        ->default_str("fp32");
    command.add_flag("!--no-inductor", settings.inductorBaseline,
                     "Compare with eager PyTorch only (no torch.compile baseline: nothing to build)");
    command
        .add_option("--baseline-every", settings.baselineEveryEvaluations,
                    "Re-time the baselines after this many evaluations on a GPU (0: never)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    command
        .add_option("--baseline-minutes", settings.baselineEveryMinutes, "... or after this many minutes (0: never)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
}

void addKernelBenchCommands(CLI::App &app, Action &action)
{
    auto options = std::make_shared<ImportCommandOptions>();
    auto *import = app.add_subcommand("import", "Import a KernelBench-format problem file (.py) as an op");
    import->add_option("file", options->file, "Problem file: class Model, get_inputs(), get_init_inputs()")->required();
    addArchiveOption(*import, options->archive);
    import->add_option("--seed", options->seed, "Seed for the model's parameters and the sample inputs")
        ->capture_default_str();
    import->add_option("--device", options->device, "Where the model is traced")
        ->check(CLI::IsMember({"cpu", "cuda"}))
        ->capture_default_str();
    import->add_option("--max-mb", options->maxMegabytes, "Largest total size of inputs and parameters (MB)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    import->add_flag("--keep-untranslated", options->keepUntranslated,
                     "Store the op even when the templates cannot generate it");
    addImportLimitOptions(*import, options->limits);
    import->callback([&action, options] { action = [options] { return runImport(*options);
};
} // namespace kx::cli
);

auto coverage = std::make_shared<CoverageOptions>();
auto *command = app.add_subcommand("coverage", "Import every problem file of a folder and report what translates");
command->add_option("dir", coverage->dir, "Folder of problem files (searched recursively)")->required();
addArchiveOption(*command, coverage->archive);
command->add_option("--budget", coverage->budgetSeconds, "Seconds of search per op with --gpu")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
command->add_option("--markdown", coverage->markdown, "Also write the table as Markdown to this file");
command->add_option("--csv", coverage->csv, "Also write the table as CSV to this file");
command->add_flag("--gpu", coverage->gpu, "Search each translated op briefly and report verified speedups");
command->add_option("--device", coverage->device, "Where the models are traced for the import")
    ->check(CLI::IsMember({"cpu", "cuda"}))
    ->capture_default_str();
command->add_option("--max-mb", coverage->maxMegabytes, "Largest total size of a problem's inputs (MB)")
    ->capture_default_str()
    ->check(CLI::PositiveNumber);
command->add_option("--jobs,-j", coverage->jobs, "Imports at once (default: half the hardware threads)")
    ->check(CLI::NonNegativeNumber);
addBaselineOptions(*command, coverage->eval);
addImportLimitOptions(*command, coverage->limits);
command
    ->add_flag("--resume", coverage->resume,
               "Keep the finished rows of the --csv file of an earlier run, and do the rest")
    ->needs(command->get_option("--csv"));
command->callback([&action, coverage] { action = [coverage] { return runCoverage(*coverage); }; });
}

} // namespace kx::cli
