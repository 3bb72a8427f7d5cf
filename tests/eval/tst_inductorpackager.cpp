// Preparing the Inductor baseline on the host, with a stand-in for Python and its helper: a package is built once
// per op, architecture and PyTorch version and found in the cache afterwards; an op that does not export falls
// back to torch.compile timed in Python (and that is remembered); without a package runner, Python or a PyTorch
// source there are the fallback or a reason, never a failure.
#include "core/baseline/inductorpackager.h"
#include "core/domain/baseline.h"
#include "core/eval/pythonhelper.h"
#include "core/eval/sandbox.h"
#include "core/ops/builtinops.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include <sys/stat.h>

#include <cstdlib>

#include <algorithm>
#include <sstream>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

const std::vector<std::string> kRunner{"/opt/kx/bin/kx", "baseline-runner"};

// A stand-in for a Python with PyTorch: answers the version probe, and for the helper's package mode either
// writes a package or reports that the op does not export. Every helper call is logged to calls.log, every
// request kept in request.json.
enum class Outcome { Exports, DoesNotExport, OutOfMemory };

std::string fakePython(const TemporaryDir &dir, const std::string &name, Outcome outcome)
{
    const auto path = dir.filePath(name);
    std::ostringstream script;
    script << "#!/bin/sh\n"
           << "if [ \"$1\" = -c ]; then echo 9.9.9+fake; exit 0; fi\n"
           << "echo \"$2 $3 $4 $5 cache=$TORCHINDUCTOR_CACHE_DIR\" >> " << dir.filePath("calls.log") << "\n"
           << "cat > " << dir.filePath("request.json") << "\n";
    if (outcome == Outcome::Exports)
        script << "printf 'PK package' > \"$3\"\n"
               << "echo '{\"ok\": true, \"package\": \"'\"$3\"'\", \"exportSeconds\": 1.5, \"compileSeconds\": 9.5}'\n";
    else if (outcome == Outcome::DoesNotExport)
        script << "echo '{\"ok\": false, \"stage\": \"export\", \"error\": \"torch.export failed: data-dependent\"}'\n"
               << "exit 3\n";
    else
        script << "echo '{\"ok\": false, \"stage\": \"compile\", \"error\": \"AOTInductor failed: InductorError: "
                  "RuntimeError: Failed to run autotuning code block: CUDA error: out of memory\"}'\n"
               << "exit 3\n";
    REQUIRE(test::writeFile(path, script.str()));
    ::chmod(path.c_str(), 0755);
    return path;
}

InductorPackager packager(const TemporaryDir &dir, const std::string &python)
{
    InductorPackager::Options options;
    options.cacheDir = dir.filePath("cache");
    options.python = python;
    options.sandbox = false; // the stand-in cannot answer the sandbox's questions (see the sandboxed case below)
    return InductorPackager(options);
}

int helperCalls(const TemporaryDir &dir)
{
    const auto log = test::readFile(dir.filePath("calls.log"));
    return int(std::count(log.begin(), log.end(), '\n'));
}

} // namespace

TEST_CASE("a package is built once per op, architecture and PyTorch version, then found in the cache")
{
    TemporaryDir dir;
    const auto python = fakePython(dir, "python-exports", Outcome::Exports);
    const Op &op = *findBuiltInOp("layer_norm");
    const auto first = packager(dir, python).prepare(op, "sm_90", 2, kRunner);
    INFO("details: ", first.settings.details, " unavailable: ", first.settings.unavailable);
    REQUIRE(first.package);
    CHECK_FALSE(first.package->fromCache);
    CHECK(first.package->arch == "sm_90");
    CHECK(first.package->torchVersion == "9.9.9+fake");
    CHECK(first.package->shapes == "D=4096, N=16384");
    CHECK(first.package->compileSeconds == doctest::Approx(9.5));
    CHECK(first.package->path.rfind(dir.filePath("cache"), 0) == 0);
    CHECK(first.settings.method == baselinemethod::kAotiPackage);
    CHECK(first.settings.command == std::vector<std::string>{kRunner[0], kRunner[1], "--package", first.package->path});
    CHECK(nlohmann::json::parse(first.settings.details).value("package", "") == first.package->sha256);
    // The helper built it on the named GPU, with Inductor's own cache beside the packages, from the op's definition.
    const auto calls = test::readFile(dir.filePath("calls.log"));
    CHECK(calls.find("package " + first.package->path + " --device 2") != std::string::npos);
    CHECK(calls.find("cache=" + dir.filePath("cache") + "/torchinductor") != std::string::npos);
    CHECK(nlohmann::json::parse(test::readFile(dir.filePath("request.json"))).at("op").at("name") == "layer_norm");

    const auto again = packager(dir, python).prepare(op, "sm_90", 0, kRunner);
    REQUIRE(again.package);
    CHECK(again.package->fromCache);
    CHECK(again.package->sha256 == first.package->sha256);
    CHECK(helperCalls(dir) == 1);

    const auto otherArch = packager(dir, python).prepare(op, "sm_100", 0, kRunner);
    REQUIRE(otherArch.package);
    CHECK(otherArch.package->path != first.package->path);
    CHECK(helperCalls(dir) == 2);
}

TEST_CASE("an op that does not export is timed as torch.compile in Python, and the failure is remembered")
{
    TemporaryDir dir;
    const auto python = fakePython(dir, "python-no-export", Outcome::DoesNotExport);
    const Op &op = *findBuiltInOp("relu");
    const auto prepared = packager(dir, python).prepare(op, "sm_90", 0, kRunner);
    CHECK_FALSE(prepared.package);
    CHECK(prepared.settings.method == baselinemethod::kTorchCompile);
    REQUIRE(prepared.settings.command.size() == 5);
    CHECK(prepared.settings.command[0] == "env");
    CHECK(prepared.settings.command[1] == "TORCHINDUCTOR_CACHE_DIR=" + dir.filePath("cache") + "/torchinductor");
    CHECK(prepared.settings.command[2] == python);
    CHECK(prepared.settings.command[3].ends_with("kx_inductor_baseline.py"));
    CHECK(prepared.settings.command[4] == "time");
    CHECK(nlohmann::json::parse(prepared.settings.details).value("packageError", "")
          == "torch.export failed: data-dependent");
    CHECK(packager(dir, python).prepare(op, "sm_90", 0, kRunner).settings.method == baselinemethod::kTorchCompile);
    CHECK(helperCalls(dir) == 1);
}

TEST_CASE("a build that ran out of GPU memory is not remembered: the next preparation tries again")
{
    TemporaryDir dir;
    const auto python = fakePython(dir, "python-out-of-memory", Outcome::OutOfMemory);
    const Op &op = *findBuiltInOp("relu");
    const auto first = packager(dir, python).prepare(op, "sm_90", 0, kRunner);
    CHECK_FALSE(first.package);
    CHECK(first.outOfMemory);
    CHECK(first.settings.method == baselinemethod::kTorchCompile); // this run goes on with the fallback
    const auto second = packager(dir, python).prepare(op, "sm_90", 0, kRunner);
    CHECK(second.outOfMemory);
    CHECK(helperCalls(dir) == 2);

    // An op that does not export is no out-of-memory case.
    TemporaryDir other;
    const auto noExport = fakePython(other, "python-no-export", Outcome::DoesNotExport);
    CHECK_FALSE(packager(other, noExport).prepare(op, "sm_90", 0, kRunner).outOfMemory);
}

TEST_CASE("the op's Python runs in the sandbox: the helper starts there and reads its request")
{
    if (findBubblewrap().empty() || !findPythonWithTorch()) {
        MESSAGE("skipped: needs bubblewrap and a Python with PyTorch");
        return;
    }
    TemporaryDir dir;
    InductorPackager::Options options;
    options.cacheDir = dir.filePath("cache");
    const Op &op = *findBuiltInOp("relu");
    const auto prepared = InductorPackager(options).prepare(op, "sm_90", 0, kRunner);
    // No GPU here: the helper, confined, got as far as asking PyTorch for one, and the fallback is confined too.
    CHECK_FALSE(prepared.package);
    const auto error = nlohmann::json::parse(prepared.settings.details).value("packageError", "");
    CHECK_MESSAGE(error.find("no CUDA device") != std::string::npos, error);
    REQUIRE_FALSE(prepared.settings.command.empty());
    CHECK(prepared.settings.command.front() == findBubblewrap());
    CHECK(prepared.settings.command.back() == "time");
    const auto &command = prepared.settings.command;
    CHECK(std::find(command.begin(), command.end(), "--unshare-all") != command.end());
    CHECK(std::find(command.begin(), command.end(), dir.filePath("cache")) != command.end()); // its one writable place
}

TEST_CASE("without bubblewrap the op's Python does not run, unless the sandbox is switched off")
{
    TemporaryDir dir;
    ::setenv("KX_BWRAP", "", 1);
    InductorPackager::Options options;
    options.cacheDir = dir.filePath("cache");
    options.python = fakePython(dir, "python-unconfined", Outcome::Exports);
    const Op &op = *findBuiltInOp("relu");
    const auto refused = InductorPackager(options).prepare(op, "sm_90", 0, kRunner);
    CHECK(refused.settings.command.empty());
    CHECK(refused.settings.unavailable.find("bubblewrap (bwrap) was not found") != std::string::npos);
    CHECK(helperCalls(dir) == 0);
    options.sandbox = false;
    CHECK(InductorPackager(options).prepare(op, "sm_90", 0, kRunner).package);
    ::unsetenv("KX_BWRAP");
}

TEST_CASE("without a package runner, Python or a PyTorch source there is a fallback or a reason")
{
    TemporaryDir dir;
    const Op &relu = *findBuiltInOp("relu");

    const auto customWorker = packager(dir, fakePython(dir, "python", Outcome::Exports)).prepare(relu, "sm_90", 0, {});
    CHECK(customWorker.settings.method == baselinemethod::kTorchCompile);
    CHECK(customWorker.settings.details.find("custom worker command") != std::string::npos);
    CHECK(helperCalls(dir) == 0);

    const auto noPython = packager(dir, dir.filePath("no-such-python")).prepare(relu, "sm_90", 0, kRunner);
    CHECK(noPython.settings.command.empty());
    CHECK(noPython.settings.unavailable.rfind("no Inductor baseline: ", 0) == 0);

    Op noSource = relu;
    noSource.referenceSource.clear();
    const auto nothing =
        packager(dir, fakePython(dir, "python2", Outcome::Exports)).prepare(noSource, "sm_90", 0, kRunner);
    CHECK(nothing.settings.command.empty());
    CHECK(nothing.settings.unavailable == "no Inductor baseline: the op has no PyTorch source to compile");
}
