// kx profile ID: one launch of a candidate, and one run of the eager reference, under Nsight Compute; the metrics
// are stored with the candidate. kx profile-launch is the profiled child (hidden): candidate code runs only there.
#include "commands.h"
#include "interrupt.h"
#include "profileformat.h"

#include "core/archive/archive.h"
#include "core/eval/workerplacement.h"
#include "core/profile/ncucommand.h"
#include "core/profile/ncureport.h"
#include "core/profile/profilelaunch.h"
#include "core/profile/trafficcheck.h"
#include "core/propose/commandrunner.h"
#include "core/util/clock.h"
#include "core/util/executablepath.h"
#include "core/util/jsonparse.h"
#include "core/util/removetree.h"

#include <nlohmann/json.hpp>

#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace kx::cli {
namespace {

/// The inputs of the profiled runs: one fixed seed, so two profiles of a kernel see the same data.
constexpr std::uint64_t kProfileInputSeed = 20260;

struct ProfileOptions
{
    std::string archive;
    std::string id;
    int gpu = 0;
    std::string ncu;
    double timeoutSeconds = 600;
    bool candidateOnly = false;
    bool json = false;
};

std::string readWholeFile(const std::string &path)
{
    std::ifstream file(path, std::ios::binary);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

// A private folder for the request and the child's answers, removed with its contents.
class WorkFolder
{
public:
    WorkFolder()
    {
        std::error_code error;
        std::string pattern = (std::filesystem::temp_directory_path(error) / "kx-profile-XXXXXX").string();
        if (::mkdtemp(pattern.data()))
            m_path = pattern;
    }
    ~WorkFolder()
    {
        if (!m_path.empty())
            removeTree(m_path);
    }
    WorkFolder(const WorkFolder &) = delete;
    WorkFolder &operator=(const WorkFolder &) = delete;
    const std::string &path() const { return m_path; }
    std::string file(const std::string &name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

// The last lines of a text, for messages.
std::string tail(const std::string &text, std::size_t bytes = 2000)
{
    return text.size() <= bytes ? text : "..." + text.substr(text.size() - bytes);
}

std::string ncuVersion(const std::string &ncu, std::stop_token stop)
{
    const auto ran = CommandRunner::run(shellQuoted(ncu) + " --version", "", std::chrono::seconds(60), stop);
    return ran ? ncuVersionOf(ran->out) : std::string();
}

/// One profiled run: a profile to store (with the error of ncu or of the launch, if any), or an Error when there is
/// nothing to store (the launch found no GPU to use).
Expected<Profile> profileOnce(const ProfileOptions &options, const std::string &ncu, const WorkFolder &folder,
                              const std::string &requestPath, ProfileTarget target, std::stop_token stop)
{
    Profile profile;
    profile.target = target;
    profile.createdAtMs = nowMs();
    const std::string resultPath = folder.file(std::string("result-") + toString(target) + ".json");
    std::string command = shellQuoted(ncu);
    for (const auto &argument : ncuProfileArguments())
        command += ' ' + shellQuoted(argument);
    for (const std::string &argument :
         {executablePath(), std::string("profile-launch"), std::string("--request"), requestPath, std::string("--what"),
          std::string(toString(target)), std::string("--device"), std::to_string(options.gpu), std::string("--result"),
          resultPath})
        command += ' ' + shellQuoted(argument);

    const auto ran = CommandRunner::run(command, "", std::chrono::duration<double>(options.timeoutSeconds), stop);
    if (!ran) {
        profile.error = "ncu: " + ran.error().message;
        return profile;
    }
    ProfileLaunchResult launch;
    if (const auto parsed = parseJson(readWholeFile(resultPath)); parsed) {
        try {
            launch = parsed->get<ProfileLaunchResult>();
        } catch (const nlohmann::json::exception &) {
        }
    }
    if (launch.error.kind == ErrorKind::NoGpu)
        return Error::noGpu("no GPU: " + launch.error.message);
    profile.gpu = launch.gpu;
    profile.check = launch.check;
    const std::string output = ran->out + "\n" + ran->err;
    const std::string errors = ncuErrors(output);
    if (!launch.ran()) {
        profile.error = "the profiled launch failed: " + launch.error.message;
        return profile;
    }
    const auto report = NcuReport::parse(ran->out);
    if (!report) {
        profile.error = !errors.empty() ? errors
                                        : report.error().message + " (ncu exited with " + std::to_string(ran->exitCode)
                                              + ": " + tail(ran->err.empty() ? ran->out : ran->err) + ")";
        return profile;
    }
    profile.metrics = report->aggregate();
    profile.kernels = report->kernels();
    profile.error = errors; // kernels measured, but ncu also reported a failure: keep both
    return profile;
}

int runProfile(const ProfileOptions &options)
{
    // Read first: an unknown id or a missing ncu changes nothing, not even an older archive's schema.
    Candidate candidate;
    Op op;
    Precision precision = Precision::Fp32;
    {
        auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadOnly);
        if (!archive)
            return BadInput;
        int exitCode = Ok;
        auto found = candidateWithOpOrReport(*archive, options.id, exitCode);
        if (!found)
            return exitCode;
        candidate = std::move(found->candidate);
        op = std::move(found->op);
        // As the candidate was last evaluated: TF32 in its library steps and in eager PyTorch, or not.
        if (const auto evaluations = archive->evaluations(candidate.id); !evaluations.empty())
            precision = evaluations.back().precision;
    }
    const auto ncu = findNcu(options.ncu);
    if (!ncu) {
        std::cerr << "kx: " << ncu.error().message << '\n';
        return exitCodeFor(ncu.error());
    }
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadWrite);
    if (!archive)
        return BadInput;

    InterruptGuard interrupt;
    const WorkFolder folder;
    if (folder.path().empty()) {
        std::cerr << "kx: cannot create a temporary folder for the profiled runs\n";
        return Failure;
    }
    ProfileLaunchRequest request;
    request.op = op;
    request.candidate = candidate;
    request.precision = precision;
    request.seed = kProfileInputSeed;
    const std::string requestPath = folder.file("request.json");
    {
        std::ofstream file(requestPath, std::ios::binary | std::ios::trunc);
        file << nlohmann::json(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        if (!file.flush()) {
            std::cerr << "kx: cannot write " << requestPath << '\n';
            return Failure;
        }
    }

    const std::string version = ncuVersion(*ncu, interrupt.stopToken());
    std::vector<Profile> profiles;
    std::vector<ProfileTarget> targets{ProfileTarget::Candidate};
    if (!options.candidateOnly)
        targets.push_back(ProfileTarget::Eager);
    for (const ProfileTarget target : targets) {
        if (!options.json)
            std::cerr << "profiling the " << (target == ProfileTarget::Candidate ? "candidate" : "eager reference")
                      << " of " << op.name << " on GPU " << options.gpu << " ...\n";
        Expected<Profile> profile = profileOnce(options, *ncu, folder, requestPath, target, interrupt.stopToken());
        if (interrupt.interrupted()) {
            std::cerr << "kx: interrupted; nothing was stored\n";
            return Interrupted;
        }
        if (!profile) {
            std::cerr << "kx: " << profile.error().message << '\n';
            return exitCodeFor(profile.error());
        }
        profile->candidateId = candidate.id;
        profile->ncuVersion = version;
        addTrafficEvidence(op, *profile);
        profiles.push_back(std::move(*profile));
    }

    auto tx = archive->begin();
    for (auto &profile : profiles)
        profile.id = archive->addProfile(tx, profile);
    tx.commit();

    bool allOk = true;
    if (options.json) {
        std::cout << nlohmann::json(profiles).dump(2) << '\n';
    } else {
        std::cout << "candidate " << candidate.id << " (" << op.name << ")\n";
        for (const auto &profile : profiles) {
            std::cout << '\n';
            printProfile(std::cout, profile);
        }
    }
    for (const auto &profile : profiles) {
        if (!profile.ok()) {
            std::cerr << "kx: profiling the " << toString(profile.target) << " failed: " << profile.error << '\n';
            allOk = false;
        }
    }
    return allOk ? Ok : Failure;
}

struct LaunchOptions
{
    std::string request;
    std::string what = "candidate";
    int device = 0;
    std::string result;
};

int runProfileLaunch(const LaunchOptions &options)
{
    // Die with ncu, which started us; and keep the program's own output out of ncu's report on stdout.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    ProfileLaunchResult result;
    try {
        const auto document = parseJson(readWholeFile(options.request));
        if (!document)
            throw std::runtime_error("the request " + options.request + " is not JSON: " + document.error().message);
        const auto request = document->get<ProfileLaunchRequest>();
        result = runProfiledLaunch(request, profileTargetFromString(options.what), options.device);
    } catch (const std::exception &error) {
        result.error = Error{error.what()};
    }
    std::ofstream file(options.result, std::ios::binary | std::ios::trunc);
    file << nlohmann::json(result).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << '\n';
    if (!file.flush())
        std::cerr << "kx profile-launch: cannot write " << options.result << '\n';
    if (!result.ran()) {
        std::cerr << "kx profile-launch: " << result.error.message << '\n';
        return exitCodeFor(result.error);
    }
    return Ok;
}

} // namespace

void addProfileCommands(CLI::App &app, Action &action)
{
    auto options = std::make_shared<ProfileOptions>();
    auto *command = app.add_subcommand(
        "profile",
        "Run one launch of a candidate, and one run of the eager PyTorch reference, under Nsight Compute (ncu) on a "
        "GPU, and store the measured metrics with the candidate: DRAM bytes read and written, achieved bandwidth, "
        "SM and tensor-pipe throughput, achieved occupancy, registers, L2 hit rate and the top warp stall reasons, "
        "beside the bytes the op must move. A candidate whose DRAM traffic is under half of that (where its inputs "
        "exceed the L2 cache) gets the finding moved-too-few-bytes. The candidate runs in a child process. Exits 5 "
        "when ncu is not found, 4 without a GPU, 1 when ncu or the launch failed (the error is stored).");
    addArchiveOption(*command, options->archive);
    command->add_option("id", options->id, "Candidate id or a unique prefix (at least 4 characters)")->required();
    command->add_option("--gpu", options->gpu, "CUDA device ordinal (default 0)")->check(CLI::Range(0, 1023));
    command->add_option("--ncu", options->ncu,
                        "The ncu program (default: $KX_NCU, else ncu on PATH or in the CUDA "
                        "toolkit's bin folder)");
    command
        ->add_option("--timeout", options->timeoutSeconds,
                     "Longest one profiled run may take, in seconds (default 600)")
        ->check(CLI::PositiveNumber);
    command->add_flag("--candidate-only", options->candidateOnly, "Do not profile the eager reference");
    command->add_flag("--json", options->json, "Print the stored profiles as JSON");
    command->callback([&action, options] { action = [options] { return runProfile(*options); }; });

    // Started by ncu for kx profile; not for people (no group: hidden from --help).
    auto launch = std::make_shared<LaunchOptions>();
    auto *child = app.add_subcommand(
        "profile-launch",
        "Started by kx profile under Nsight Compute: runs one launch of a candidate, or one run of its eager "
        "reference, inside a profiled range (cudaProfilerStart/Stop) on the op's first shape set, and writes what "
        "happened (GPU, errors, the outputs' check) as JSON to --result");
    child->group("");
    child->add_option("--request", launch->request, "The request (JSON) kx profile wrote")->required();
    child->add_option("--what", launch->what, "candidate or eager")->check(CLI::IsMember({"candidate", "eager"}));
    child->add_option("--device", launch->device, "CUDA device ordinal")->check(CLI::Range(0, 1023));
    child->add_option("--result", launch->result, "Where to write what happened (JSON)")->required();
    child->callback([&action, launch] { action = [launch] { return runProfileLaunch(*launch); }; });
}

} // namespace kx::cli
