// The child that times the Inductor baseline, as a worker runs it: the request reaches it on stdin, its last
// line is the measurement, and every way it can fail (an error it reports, a crash, a hang, garbage, nothing to
// run) becomes a measurement with an error that says so, never a failure of the worker.
#include "core/eval/baselinechild.h"

#include "doctestprinters.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

using namespace kx;
using kx::test::TemporaryDir;

namespace {

// A child that runs script (sh) with "--device N" as its arguments.
InductorBaselineSettings child(const TemporaryDir &dir, const std::string &script)
{
    const auto path = dir.filePath("child.sh");
    REQUIRE(test::writeFile(path, script));
    InductorBaselineSettings settings;
    settings.command = {"/bin/sh", path};
    settings.method = baselinemethod::kAotiPackage;
    settings.details = R"({"package":"sha-of-package","arch":"sm_90"})";
    return settings;
}

} // namespace

TEST_CASE("the child gets the request and the device, and its last line is the measurement")
{
    TemporaryDir dir;
    // Echoes the device it was given and the request's op name in its details; earlier lines are ignored.
    const auto settings = child(dir, R"sh(read request
op=$(printf '%s' "$request" | sed 's/.*"name":"\([^"]*\)".*/\1/')
echo "loading..."
printf '{"kind":"inductor","samplesMs":[0.5,0.25,0.75],"wallSamplesMs":[0.6,0.4,0.8],"maxAbsError":1e-6,'
printf '"details":"{\\"device\\":\\"%s\\",\\"op\\":\\"%s\\"}","error":""}\n' "$2" "$op"
)sh");
    const auto measurement = runBaselineChild(settings,
                                              R"({"op":{"name":"layer_norm"}})"
                                              "\n",
                                              3, 10000);
    INFO(measurement.error);
    CHECK(measurement.usable());
    CHECK(measurement.kind == BaselineKind::Inductor);
    CHECK(measurement.method == baselinemethod::kAotiPackage);
    CHECK(measurement.timing.runs == 3);
    CHECK(measurement.timing.medianMs == doctest::Approx(0.5));
    CHECK(measurement.timing.wallMedianMs == doctest::Approx(0.6));
    CHECK(measurement.maxAbsError == doctest::Approx(1e-6));
    // The package's facts and the child's own, together.
    const auto details = nlohmann::json::parse(measurement.details);
    CHECK(details.value("device", "") == "3");
    CHECK(details.value("op", "") == "layer_norm");
    CHECK(details.value("package", "") == "sha-of-package");
}

TEST_CASE("a child that fails in any way gives a measurement with an error, not a failure")
{
    TemporaryDir dir;
    const struct
    {
        const char *name;
        const char *script;
        double timeoutMs;
        const char *expected;
    } cases[] = {
        {"reports an error", R"(echo '{"ok": false, "stage": "export", "error": "torch.export failed: dynamic"}')",
         10000, "torch.export failed: dynamic"},
        {"crashes", "echo 'Segmentation fault in _load_aoti' >&2; kill -SEGV $$", 10000, "crashed (signal 11"},
        {"hangs", "sleep 30", 300, "did not finish within"},
        {"writes garbage", "echo 'not json'; exit 0", 10000, "wrote no result"},
        {"writes nothing and fails", "echo 'ImportError: libcuda.so.1' >&2; exit 3", 10000, "libcuda.so.1"},
        {"writes a measurement of an unknown kind", R"(echo '{"kind":"jax"}')", 10000, "unreadable result"},
    };
    for (const auto &c : cases) {
        SUBCASE(c.name)
        {
            const auto measurement = runBaselineChild(child(dir, c.script), "{}\n", 0, c.timeoutMs);
            INFO(measurement.error);
            CHECK_FALSE(measurement.usable());
            CHECK(measurement.kind == BaselineKind::Inductor);
            CHECK(measurement.error.find(c.expected) != std::string::npos);
            CHECK(measurement.createdAtMs > 0);
        }
    }
}

TEST_CASE("without a child the measurement says why there is no Inductor baseline")
{
    InductorBaselineSettings settings;
    settings.unavailable = "no Inductor baseline: PyTorch is not installed for python3";
    CHECK(runBaselineChild(settings, "{}", 0, 1000).error == settings.unavailable);
    settings.command = {"/nonexistent/kx", "baseline-runner"};
    settings.method = baselinemethod::kAotiPackage;
    const auto missing = runBaselineChild(settings, "{}", 0, 1000);
    CHECK_FALSE(missing.usable());
    CHECK_FALSE(missing.error.empty());
}
