#include "core/baseline/inductorpackager.h"

#include "core/domain/baseline.h"
#include "core/domain/domainjson.h"
#include "core/eval/pythonhelper.h"
#include "core/eval/sandbox.h"
#include "core/util/hash.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

namespace kx {
namespace {

namespace fs = std::filesystem;
using Clock = WorkerProcess::Clock;

std::string shapesText(const ShapeSet &shapes)
{
    std::string text;
    for (const auto &[symbol, size] : shapes)
        text += (text.empty() ? "" : ", ") + symbol + "=" + std::to_string(size);
    return text;
}

// The PyTorch version of a Python, asked once per process.
Expected<std::string> torchVersionOf(const std::string &python, const std::stop_token &stop)
{
    static std::mutex mutex;
    static std::map<std::string, std::string> known;
    {
        std::lock_guard lock(mutex);
        if (const auto it = known.find(python); it != known.end())
            return it->second;
    }
    auto run = runHelper({python, "-c", "import torch; print(torch.__version__)"}, {},
                         Clock::now() + std::chrono::seconds(120), stop, "asking PyTorch for its version");
    if (!run)
        return run.error();
    if (!run->exit.success() || run->lastLine.empty())
        return Error{"PyTorch's version could not be read: " + lastNonEmptyLine(run->stderrText)};
    std::lock_guard lock(mutex);
    return known[python] = run->lastLine;
}

// An exclusive lock on a file for as long as this lives: one build per package at a time, across processes.
class FileLock
{
public:
    FileLock(const std::string &path, const std::stop_token &stop)
    {
        m_fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
        while (m_fd >= 0 && ::flock(m_fd, LOCK_EX | LOCK_NB) != 0) {
            if (stop.stop_requested()) {
                ::close(m_fd);
                m_fd = -1;
                return;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(200));
        }
    }
    ~FileLock()
    {
        if (m_fd >= 0)
            ::close(m_fd); // releases the lock
    }
    FileLock(const FileLock &) = delete;
    FileLock &operator=(const FileLock &) = delete;
    bool held() const { return m_fd >= 0; }

private:
    int m_fd = -1;
};

std::string readFile(const fs::path &path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// PyTorch says so in several ways: OutOfMemoryError, "CUDA error: out of memory", Inductor's autotuning message.
bool isOutOfMemory(const std::string &error)
{
    return error.find("out of memory") != std::string::npos || error.find("OutOfMemoryError") != std::string::npos;
}

bool writeFileAtomically(const fs::path &path, const std::string &text)
{
    const fs::path temporary = path.string() + ".tmp";
    {
        std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out)
            return false;
    }
    std::error_code error;
    fs::rename(temporary, path, error);
    return !error;
}

} // namespace

InductorPackager::InductorPackager()
    : InductorPackager(Options{})
{}

InductorPackager::InductorPackager(Options options)
    : m_options(std::move(options))
{}

std::string InductorPackager::defaultCacheDir()
{
    if (const char *cache = std::getenv("XDG_CACHE_HOME"); cache && *cache)
        return (fs::path(cache) / "kernel-explorer" / "inductor").string();
    if (const char *home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "kernel-explorer" / "inductor").string();
    return (fs::temp_directory_path() / "kernel-explorer-inductor").string();
}

Expected<std::string> InductorPackager::locateHelper()
{
#ifdef KX_INDUCTOR_HELPER_SOURCE
    const std::string source = KX_INDUCTOR_HELPER_SOURCE;
#else
    const std::string source;
#endif
    return locateHelperScript("kx_inductor_baseline.py", "KX_INDUCTOR_HELPER", source);
}

InductorPreparation InductorPackager::prepare(const Op &op, const std::string &arch, int device,
                                              const std::vector<std::string> &runner, std::stop_token stop) const
{
    InductorPreparation result;
    auto &settings = result.settings;
    const auto unavailable = [&](const std::string &why) {
        settings = {};
        settings.unavailable = "no Inductor baseline: " + why;
        return result;
    };
    if (op.referenceSource.empty())
        return unavailable("the op has no PyTorch source to compile");
    if (op.shapeSets.empty())
        return unavailable("the op defines no shape sets");
    const auto helper = locateHelper();
    if (!helper)
        return unavailable(helper.error().message);
    const auto python = findPythonWithTorch(m_options.python, stop);
    if (!python)
        return unavailable(python.error().message);
    const fs::path cacheDir = m_options.cacheDir.empty() ? defaultCacheDir() : m_options.cacheDir;
    std::error_code error;
    fs::create_directories(cacheDir / "packages", error);
    if (error)
        return unavailable("cannot create the package cache " + cacheDir.string() + ": " + error.message());
    // Inductor's own cache beside the packages: a second build of the same graph, and the Python fallback's
    // compile in the worker, find its kernels there. It and a home of the helper's own are all it may write.
    const fs::path inductorCache = cacheDir / "torchinductor";
    const fs::path home = cacheDir / "home";
    fs::create_directories(inductorCache, error);
    fs::create_directories(home, error);
    std::vector<std::string> helperCommand{*python, *helper};
    if (m_options.sandbox) {
        const std::string bwrap = findBubblewrap();
        if (bwrap.empty())
            return unavailable(missingSandboxMessage("the op's PyTorch module"));
        const auto layout = pythonLayout(*python, stop);
        if (!layout)
            return unavailable(layout.error().message);
        SandboxSpec spec;
        spec.readOnly = layout->paths;
        spec.readOnly.push_back(*helper);
        spec.writable = {cacheDir.string()};
        spec.environment = {{"TORCHINDUCTOR_CACHE_DIR", inductorCache.string()},
                            {"TRITON_CACHE_DIR", (cacheDir / "triton").string()},
                            {"HOME", home.string()},
                            {"TMPDIR", home.string()},
                            {"XDG_CACHE_HOME", (home / ".cache").string()}};
        spec.workingDir = home.string();
        spec.gpu = true;
        helperCommand.front() = layout->executable;
        helperCommand = sandboxedCommand(bwrap, helperCommand, spec);
    } else {
        helperCommand.insert(helperCommand.begin(), {"env", "TORCHINDUCTOR_CACHE_DIR=" + inductorCache.string()});
    }

    // Without a package the worker times torch.compile in Python, on the same inputs and GPU.
    const auto fallback = [&](const std::string &why) {
        settings = {};
        settings.command = helperCommand;
        settings.command.push_back("time");
        settings.method = baselinemethod::kTorchCompile;
        settings.details = nlohmann::json{{"packageError", why}}.dump();
        return result;
    };
    if (runner.empty())
        return fallback("the workers cannot run AOTInductor packages (a custom worker command)");
    const auto torchVersion = torchVersionOf(*python, stop);
    if (!torchVersion)
        return unavailable(torchVersion.error().message);

    const std::string shapes = shapesText(op.shapeSets.front());
    const std::string key = sha256Hex(nlohmann::json(op).dump() + '\n' + arch + '\n' + *torchVersion).substr(0, 32);
    const fs::path dir = cacheDir / "packages" / key;
    fs::create_directories(dir, error);
    const FileLock lock((dir / "lock").string(), stop);
    if (!lock.held())
        return unavailable("cancelled while another process built the package");

    const fs::path packagePath = dir / "package.pt2"; // in the cache folder: writable inside the sandbox
    const fs::path resultPath = dir / "result.json";
    nlohmann::json built = nlohmann::json::parse(readFile(resultPath), nullptr, false);
    bool fromCache = built.is_object() && (!built.value("ok", false) || fs::is_regular_file(packagePath));
    if (!fromCache) {
        const nlohmann::json request{{"op", op}, {"shapeSet", 0}, {"seed", 0}, {"inputSeed", 0}};
        auto argv = helperCommand;
        argv.insert(argv.end(), {"package", packagePath.string(), "--device", std::to_string(device)});
        auto run = runHelper(argv, request.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                             Clock::now() + m_options.timeout, stop, "building the Inductor package");
        if (!run)
            return fallback(run.error().message); // cancelled or too slow: not remembered, tried again next time
        built = nlohmann::json::parse(run->lastLine, nullptr, false);
        if (!built.is_object())
            return fallback("the Inductor helper wrote no result (" + run->exit.toString()
                            + "): " + lastNonEmptyLine(run->stderrText));
        built["arch"] = arch;
        built["shapes"] = shapes;
        // Failures of the op itself (it does not export) are remembered; the fallback takes over from then on.
        // Running out of GPU memory beside other work says nothing about the op: tried again next time.
        if (!isOutOfMemory(built.value("error", std::string())))
            writeFileAtomically(resultPath, built.dump());
    }
    if (!built.value("ok", false)) {
        const std::string why = built.value("error", std::string("the package could not be built"));
        fallback(why);
        result.outOfMemory = isOutOfMemory(why);
        return result;
    }

    InductorPackage package;
    package.path = packagePath.string();
    package.sha256 = sha256Hex(readFile(packagePath));
    package.arch = arch;
    package.torchVersion = *torchVersion;
    package.shapes = shapes;
    package.exportSeconds = built.value("exportSeconds", 0.0);
    package.compileSeconds = built.value("compileSeconds", 0.0);
    package.fromCache = fromCache;
    settings.command = runner;
    settings.command.insert(settings.command.end(), {"--package", package.path});
    settings.method = baselinemethod::kAotiPackage;
    settings.details = nlohmann::json{
        {"package", package.sha256},
        {"arch", arch},
        {"torch", package.torchVersion},
        {"shapes", shapes},
        {"exportSeconds", package.exportSeconds},
        {"compileSeconds", package.compileSeconds},
        {"fromCache",
         fromCache}}.dump();
    result.package = std::move(package);
    return result;
}

} // namespace kx
