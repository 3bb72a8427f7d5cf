// kx search OP, kx resume RUN: run the evolutionary search with GPU workers, with a live progress line.
#include "commands.h"
#include "format.h"
#include "interrupt.h"

#include "core/archive/archive.h"
#include "core/archive/archivelocation.h"
#include "core/eval/workerplacement.h"
#include "core/ops/builtinops.h"
#include "core/plan/devicelist.h"
#include "core/plan/nvrtccompiler.h"
#include "core/propose/proposerfactory.h"
#include "core/search/runbest.h"
#include "core/search/searchsession.h"
#include "core/util/commandline.h"
#include "core/util/executablepath.h"

#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <map>
#include <mutex>
#include <unistd.h>
#include <utility>

namespace kx::cli {
namespace {

struct SearchOptions
{
    std::string archive;
    std::string gpus;                       ///< "0,1"; empty: all
    std::string time;                       ///< "90", "90s", "10m", "1h"
    std::string worker;                     ///< Worker program and arguments; empty: this kx's `worker`
    std::vector<std::string> sshHosts;      ///< "gpu-box:0,1": workers on hosts reached by SSH
    std::string sshCommand = "ssh";         ///< ssh and its options, split as a shell would
    std::string remoteWorker = "kx worker"; ///< The worker command on SSH hosts and Slurm nodes
    int slurmWorkers = 0;                   ///< Workers in Slurm jobs (0: none)
    SlurmRequest slurm;
    std::string srunCommand = "srun";
    SearchSettings settings;
    ProposerSettings proposer;
    ImportLimits importLimits; ///< For an op given as a problem file.
    CompileOptions compile;    ///< Its time and memory limits; the workers give the arch.
};

Expected<double> parseDuration(const std::string &text)
{
    if (text.empty())
        return 0.0;
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception &) {
        return Error{"--time: '" + text + "' is not a duration (e.g. 90s, 10m, 1h)"};
    }
    const std::string unit = text.substr(used);
    const double scale = unit.empty() || unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : -1;
    if (scale < 0 || value < 0)
        return Error{"--time: '" + text + "' is not a duration (e.g. 90s, 10m, 1h)"};
    return value * scale;
}

// Where the workers run: --ssh hosts, --slurm jobs, or this machine.
Expected<WorkerPlacement> workerPlacement(const SearchOptions &options)
{
    const auto words = [](const std::string &option, const std::string &text) -> Expected<std::vector<std::string>> {
        auto split = splitCommandLine(text);
        if (!split)
            return Error{option + ": " + split.error().message};
        return split;
    };
    if (!options.sshHosts.empty()) {
        std::vector<SshHost> hosts;
        for (const auto &text : options.sshHosts) {
            auto host = parseSshHost(text);
            if (!host)
                return Error{"--ssh: " + host.error().message};
            hosts.push_back(std::move(*host));
        }
        auto ssh = words("--ssh-command", options.sshCommand);
        auto remote = words("--remote-worker", options.remoteWorker);
        if (!ssh || !remote)
            return Error{(!ssh ? ssh.error() : remote.error()).message};
        return WorkerPlacement::ssh(std::move(*ssh), std::move(hosts), std::move(*remote));
    }
    if (options.slurmWorkers > 0) {
        auto srun = words("--srun-command", options.srunCommand);
        auto remote = words("--remote-worker", options.remoteWorker);
        if (!srun || !remote)
            return Error{(!srun ? srun.error() : remote.error()).message};
        SlurmRequest request = options.slurm;
        request.workers = options.slurmWorkers;
        return WorkerPlacement::slurm(std::move(*srun), std::move(request), std::move(*remote));
    }
    return WorkerPlacement::local({});
}

std::string selfExecutable()
{
    const std::string path = executablePath();
    return path.empty() ? std::string("kx") : path;
}

// Prints progress from the engine's thread: one status line (rewritten on a terminal) and a line per new best.
class ProgressPrinter
{
public:
    void operator()(const SearchEvent &event)
    {
        std::lock_guard lock(m_mutex);
        switch (event.kind) {
        case SearchEvent::Kind::NewBest: {
            clearStatus();
            const auto &evaluation = *event.evaluation;
            std::string inductor;
            if (const auto over = speedupOverInductor(evaluation))
                inductor = ", " + formatSpeedup(*over) + " vs Inductor ("
                           + formatMs(findBaseline(evaluation.baselines, BaselineKind::Inductor)->timing.medianMs)
                           + ")";
            std::printf("new best: %s %s vs eager (%s vs %s)%s - %s\n", shortId(event.candidate->id).c_str(),
                        formatSpeedup(evaluation.speedup).c_str(), formatMs(evaluation.timing.medianMs).c_str(),
                        formatMs(evaluation.baseline.medianMs).c_str(), inductor.c_str(),
                        event.candidate->description.c_str());
            break;
        }
        case SearchEvent::Kind::Note:
            clearStatus();
            std::printf("%s\n", event.message.c_str());
            break;
        case SearchEvent::Kind::Error:
            clearStatus();
            std::fprintf(stderr, "kx: %s\n", event.message.c_str());
            break;
        case SearchEvent::Kind::Evaluated:
        case SearchEvent::Kind::Proposed:
            if (m_terminal)
                printStatus(event.progress);
            break;
        case SearchEvent::Kind::GenerationFinished:
            if (!m_terminal)
                printStatus(event.progress);
            break;
        case SearchEvent::Kind::Finished:
            clearStatus();
            printStatus(event.progress);
            if (m_terminal)
                std::printf("\n");
            std::printf("%s\n", event.message.c_str());
            break;
        case SearchEvent::Kind::StateChanged: break;
        }
        std::fflush(stdout);
    }

private:
    void printStatus(const SearchProgress &p)
    {
        const int width = 24;
        const int filled = p.proposed ? width * p.evaluated / p.proposed : 0;
        std::string bar(std::size_t(filled), '#');
        bar += std::string(std::size_t(width - filled), '.');
        char best[64] = "none yet";
        if (!p.bestCandidateId.empty())
            std::snprintf(best, sizeof best, "%s (%s)", formatSpeedup(p.bestSpeedup).c_str(),
                          shortId(p.bestCandidateId).substr(0, 8).c_str());
        std::printf("%s[%s] gen %d: %d proposed, %d evaluated (%d correct, %d failed) | best %s | %.0f s%s",
                    m_terminal ? "\r" : "", bar.c_str(), p.generation, p.proposed, p.evaluated, p.correct, p.failed,
                    best, p.elapsedSeconds, m_terminal ? "\033[K" : "\n");
        m_statusShown = m_terminal;
    }
    void clearStatus()
    {
        if (m_statusShown)
            std::printf("\r\033[K");
        m_statusShown = false;
    }

    std::mutex m_mutex;
    const bool m_terminal = ::isatty(STDOUT_FILENO) != 0;
    bool m_statusShown = false;
};

void printSummary(const std::string &archivePath, std::int64_t runId)
{
    auto archive = Archive::open(archivePath, ArchiveMode::ReadOnly);
    if (!archive)
        return;
    const auto run = (*archive)->run(runId);
    std::printf("run %lld (%s): %zu candidates\n", static_cast<long long>(runId), run ? toString(run->state) : "?",
                (*archive)->candidatesOfRun(runId).size());
    // Ranked as the search ranks: kernel time against the median of the run's eager times.
    const auto best = bestOfRun(**archive, runId);
    if (!best) {
        std::printf("no correct kernel with a believable time yet\n");
        return;
    }
    const auto overInductor = best->speedupOverInductor();
    std::printf("best: %s %s vs eager, %s vs Inductor on %s [%s]: %s\n", shortId(best->candidateId).c_str(),
                formatSpeedup(best->speedup).c_str(), overInductor ? formatSpeedup(*overInductor).c_str() : "-",
                best->gpu.c_str(), toString(best->precision), standingText(best->speedup, overInductor).c_str());
    if (!overInductor && !best->inductorNote.empty())
        std::printf("%s\n", best->inductorNote.c_str());
    std::printf("see it with: kx archive show %s\n", shortId(best->candidateId).c_str());
}

void printCost(const CostLedger &ledger)
{
    const auto totals = ledger.totals();
    if (totals.calls == 0)
        return;
    std::printf("model calls: %lld (%lld unusable), %lld prompt + %lld completion tokens, estimated cost %.4f\n",
                static_cast<long long>(totals.calls), static_cast<long long>(totals.failedCalls),
                static_cast<long long>(totals.promptTokens), static_cast<long long>(totals.completionTokens),
                totals.cost);
}

void addProposerOptions(CLI::App &command, ProposerSettings &settings)
{
    static const std::map<std::string, ProposerKind> kinds{{"template", ProposerKind::Template},
                                                           {"llm", ProposerKind::Llm},
                                                           {"command", ProposerKind::Command},
                                                           {"mix", ProposerKind::Mix}};
    command.add_option("--proposer", settings.kind, "Who proposes candidates: template, llm, command or mix")
        ->transform(CLI::CheckedTransformer(kinds))
        ->default_str(toString(settings.kind));
    auto &llm = settings.llm;
    command.add_option("--endpoint", llm.endpoint, "Base URL of an OpenAI-compatible API ({URL}/chat/completions)")
        ->capture_default_str();
    command.add_option("--model", llm.model, "Model name for the llm and mix proposers");
    command.add_option("--api-key-env", llm.apiKeyEnv, "Environment variable holding the API key (never stored)")
        ->capture_default_str();
    command.add_option("--temperature", llm.temperature, "Sampling temperature")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 2.0));
    command.add_option("--max-tokens", llm.maxTokens, "Longest answer in tokens")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command.add_option("--llm-timeout", llm.timeoutSeconds, "Seconds to wait for the model to send anything")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command
        .add_option("--llm-deadline", llm.deadlineSeconds,
                    "Seconds one model request may take in all, the whole answer included")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command.add_option("--concurrency", llm.concurrency, "Model requests in flight at once")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command.add_option("--price-prompt", llm.pricePromptPerMillion, "Price per 1M prompt tokens (cost estimates)")
        ->check(CLI::NonNegativeNumber);
    command
        .add_option("--price-completion", llm.priceCompletionPerMillion,
                    "Price per 1M completion tokens (cost estimates)")
        ->check(CLI::NonNegativeNumber);
    command.add_option("--llm-share", settings.llmShare, "mix: share of candidates asked of the model (or command)")
        ->capture_default_str()
        ->check(CLI::Range(0.0, 1.0));
    command.add_option("--command", settings.command.command,
                       "command proposer: shell command reading a prompt on stdin, writing a candidate on stdout");
    command.add_option("--command-timeout", settings.command.timeoutSeconds, "Seconds the command may take")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    command.add_option("--prompts", settings.promptsDir,
                       "Folder with prompt templates (copy the installed ones to edit them)");
}

// Starts workers, runs (or continues) the search in the foreground, Ctrl-C cancels (the run can be resumed).
int runSearch(const SearchOptions &options, const std::optional<Op> &op, std::optional<std::int64_t> runToContinue)
{
    const auto devices = parseDeviceList(options.gpus);
    if (!devices) {
        std::cerr << "kx: --gpus: " << devices.error().message << '\n';
        return Usage;
    }
    const std::string archivePath = options.archive.empty() ? defaultArchivePath() : options.archive;
    if (!ensureParentFolder(archivePath)) {
        std::cerr << "kx: cannot create the folder of " << archivePath << '\n';
        return BadInput;
    }
    if (const auto proposerOk = checkProposerSettings(options.proposer); !proposerOk) {
        std::cerr << "kx: " << proposerOk.error().message << '\n';
        return Usage;
    }
    if (!NvrtcCompiler::available()) {
        std::cerr << "kx: this build has no NVRTC (CUDA toolkit not found at build time): searching needs it\n";
        return NoGpu;
    }

    // A continued run keeps its stored budget; --time adds a limit for this session.
    std::vector<std::unique_ptr<StopCondition>> extraStops;
    if (runToContinue && !options.time.empty()) {
        const auto seconds = parseDuration(options.time);
        if (!seconds) {
            std::cerr << "kx: " << seconds.error().message << '\n';
            return Usage;
        }
        extraStops.push_back(makeTimeLimit(*seconds));
    }

    std::promise<void> finished;
    auto done = finished.get_future();
    auto printer = std::make_shared<ProgressPrinter>();
    std::vector<std::string> workerCommand{selfExecutable(), "worker"};
    if (!options.worker.empty()) {
        auto words = splitCommandLine(options.worker);
        if (!words) {
            std::cerr << "kx: --worker: " << words.error().message << '\n';
            return Usage;
        }
        workerCommand = std::move(*words);
    }
    auto placement = workerPlacement(options);
    if (!placement) {
        std::cerr << "kx: " << placement.error().message << '\n';
        return Usage;
    }
    const auto resources = ProposerResources::forSettings(options.proposer);
    SearchSessionOptions sessionOptions{
        ArchiveRef::readWrite(archivePath), workerCommand, *devices, {}, options.settings, {}, options.compile, {}};
    if (placement->kind() != WorkerPlacement::Kind::Local)
        sessionOptions.placement = *placement;
    sessionOptions.inductor.sandbox = options.importLimits.sandbox; // --no-sandbox: the op's Python unconfined
    sessionOptions.makeProposer = proposerMaker(options.proposer, resources);
    SearchSession session(std::move(sessionOptions), [printer, &finished](const SearchEvent &event) {
        (*printer)(event);
        if (event.kind == SearchEvent::Kind::Finished)
            finished.set_value();
    });
    // From here on Ctrl-C stops gracefully: compiles in progress end at once, the run can be resumed.
    const InterruptGuard interrupt;
    std::cout << "starting GPU workers ..." << std::endl;
    const auto started = session.startWorkers();
    if (interrupt.interrupted()) {
        std::cerr << "kx: interrupted while the workers were starting\n";
        return Interrupted;
    }
    if (!started) {
        std::cerr << "kx: " << (started.error().kind == ErrorKind::NoGpu ? "no GPU to search on: " : "")
                  << started.error().message << '\n';
        return exitCodeFor(started.error());
    }
    for (const auto &worker : session.workers())
        std::cout << "worker " << worker.device << ": " << worker.gpu.name << " (" << worker.arch << ", "
                  << int(worker.gpu.measuredBandwidthGBs) << " GB/s measured"
                  << (placement->kind() == WorkerPlacement::Kind::Local || worker.gpu.host.empty()
                          ? std::string()
                          : ", on " + worker.gpu.host)
                  << ")\n";

    const auto runId =
        op ? session.start(*op, std::move(extraStops)) : session.continueRun(*runToContinue, std::move(extraStops));
    if (!runId) {
        std::cerr << "kx: " << runId.error().message << '\n';
        return exitCodeFor(runId.error());
    }
    std::cout << (op ? "searching " + op->name : "continuing run " + std::to_string(*runId)) << " in " << archivePath
              << " (run " << *runId << "; Ctrl-C stops, kx resume " << *runId << " continues)" << std::endl;

    if (const auto &proposer = options.proposer; proposer.kind != ProposerKind::Template) {
        std::cout << "proposer: " << toString(proposer.kind) << " ("
                  << (runsCommand(proposer) ? proposer.command.command
                                            : proposer.llm.model + " at " + proposer.llm.endpoint)
                  << ")"
                  << (proposer.kind == ProposerKind::Mix
                          ? ", share " + std::to_string(int(proposer.llmShare * 100 + 0.5)) + "%"
                          : "")
                  << std::endl;
    }
    bool cancelled = false;
    std::map<int, int> restarts; // per device: a worker that restarts is said once per restart
    for (const auto &worker : session.workers())
        restarts[worker.device] = worker.restarts;
    while (done.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
        for (const auto &worker : session.workers())
            if (std::exchange(restarts[worker.device], worker.restarts) < worker.restarts)
                std::cout << "worker " << worker.device << " restarted"
                          << (worker.lastError.empty() ? std::string()
                                                       : ": " + worker.lastError.substr(0, worker.lastError.find('\n')))
                          << std::endl;
        if (interrupt.interrupted() && !cancelled) {
            std::cerr << "\nkx: stopping after the evaluations in flight; continue with: kx resume " << *runId << '\n';
            session.cancel();
            cancelled = true;
        }
    }
    session.wait();
    printSummary(archivePath, *runId);
    if (options.proposer.kind != ProposerKind::Template)
        printCost(*resources.ledger);
    switch (session.state()) {
    case RunState::Finished: return Ok;
    case RunState::Cancelled: return Interrupted;
    default: return Failure;
    }
}

void addBudgetOptions(CLI::App &command, SearchOptions &options)
{
    addArchiveOption(command, options.archive);
    addCompileLimitOptions(command, options.compile);
    auto *gpus = command.add_option("--gpus", options.gpus, "GPUs to use, e.g. 0,1 (default: all)");
    command.add_option("--time", options.time, "Stop after this wall time, e.g. 90s, 10m, 1h");
    auto *worker = command.add_option(
        "--worker", options.worker,
        "Worker program and arguments, split as a shell would, given --device N (default: kx worker; "
        "for GPUs reachable by SSH: \"ssh gpu-box kx worker\")");
    auto *ssh = command.add_option("--ssh", options.sshHosts,
                                   "Run workers on this host by SSH, one per listed CUDA device: HOST or HOST:0,1 "
                                   "(repeat for more hosts; the host needs kx, see --remote-worker)");
    command.add_option("--ssh-command", options.sshCommand, "ssh and its options, split as a shell would")
        ->capture_default_str();
    command
        .add_option("--remote-worker", options.remoteWorker,
                    "The worker command on SSH hosts and Slurm nodes (given --device N)")
        ->capture_default_str();
    auto *slurm = command
                      .add_option("--slurm", options.slurmWorkers,
                                  "Run this many workers as Slurm job steps (srun), one GPU each")
                      ->check(CLI::PositiveNumber);
    command
        .add_option("--slurm-gpus", options.slurm.gpusPerWorker,
                    "GPUs each Slurm worker asks for (--gres=gpu:N; 0: none, for clusters without GRES)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    command.add_option("--slurm-partition", options.slurm.partition, "Slurm partition (-p)");
    command.add_option("--slurm-account", options.slurm.account, "Slurm account (-A)");
    command.add_option("--slurm-time", options.slurm.timeLimit, "Slurm time limit of each worker (-t), e.g. 2:00:00");
    command.add_option("--srun-command", options.srunCommand, "srun and its options, split as a shell would")
        ->capture_default_str();
    ssh->excludes(slurm);
    ssh->excludes(worker);
    slurm->excludes(worker);
    // The host list names the devices of SSH hosts, and Slurm gives each job its own.
    ssh->excludes(gpus);
    slurm->excludes(gpus);
}

} // namespace

void addSearchCommands(CLI::App &app, Action &action)
{
    auto options = std::make_shared<SearchOptions>();
    auto opName = std::make_shared<std::string>();
    auto *search = app.add_subcommand("search", "Search for fast kernels for an op on the GPUs (needs a GPU)");
    search->add_option("op", *opName, "Op name (see kx ops) or a KernelBench problem file (.py)")->required();
    addBudgetOptions(*search, *options);
    addProposerOptions(*search, options->proposer);
    auto &settings = options->settings;
    search->add_option("--generations", settings.budget.generations, "Generations after the translation")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    search->add_option("--candidates", settings.budget.candidates, "Stop after this many candidates (0: no limit)")
        ->check(CLI::NonNegativeNumber);
    search
        ->add_option("--no-improvement", settings.budget.noImprovement,
                     "Stop after this many generations without a new best (0: never)")
        ->check(CLI::NonNegativeNumber);
    search->add_option("--seed", settings.seed, "Random seed (the run is reproducible for a seed)")
        ->capture_default_str();
    search->add_option("--children", settings.childrenPerGeneration, "Candidates per generation")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    search
        ->add_option("--retime-top", settings.retimeTop,
                     "On several GPUs: time the best this many kernels again on every GPU at the end (0: never)")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    search->add_option("--trials", settings.eval.trials, "Correctness trials per candidate")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    search->add_option("--timed-runs", settings.eval.timedRuns, "Timed runs per candidate")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    addBaselineOptions(*search, settings.eval);
    addImportLimitOptions(*search, options->importLimits, false);
    search->callback([&action, options, opName] {
        action = [options, opName]() -> int {
            const auto op = resolveOp(*opName, options->archive, options->importLimits);
            if (!op)
                return exitCodeFor(op.error());
            const auto seconds = parseDuration(options->time);
            if (!seconds) {
                std::cerr << "kx: " << seconds.error().message << '\n';
                return Usage;
            }
            options->settings.budget.seconds = *seconds;
            return runSearch(*options, *op, std::nullopt);
        };
    });

    auto resumeOptions = std::make_shared<SearchOptions>();
    auto runId = std::make_shared<std::int64_t>(0);
    auto *resume = app.add_subcommand("resume", "Continue a stopped, killed or finished run with its own settings");
    resume->add_option("run", *runId, "Run id (see kx runs)")->required()->check(CLI::PositiveNumber);
    addBudgetOptions(*resume, *resumeOptions);
    addProposerOptions(*resume, resumeOptions->proposer);
    resume->callback([&action, resumeOptions, runId] {
        action = [resumeOptions, runId] { return runSearch(*resumeOptions, std::nullopt, *runId); };
    });
}

} // namespace kx::cli
