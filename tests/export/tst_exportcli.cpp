// kx export end to end: the real kx writes an accepted kernel's folder from an archive built in the test, and
// refuses what the export rules refuse with the documented exit codes.
#include "app/kx/exitcodes.h"

#include "core/archive/archive.h"
#include "core/domain/candidate.h"
#include "core/domain/verdict.h"

#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>

namespace fs = std::filesystem;
using kx::test::TemporaryDir;

namespace {

const std::string kSample = KX_TEST_DATA_DIR "/sample-archive.json";
const std::string kAccepted = "e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c";
const std::string kUnreviewed = "befc282af6a7f5aa3b7f11ff4a69e94620eb702fdda8d950578f8a5ff9d3abcc";

struct Result
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

Result runKx(const std::vector<std::string> &arguments)
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    const auto result = kx::test::runProgram(argv, {}, std::chrono::seconds(60));
    REQUIRE_FALSE(result.timedOut);
    return {result.exitCode, result.out, result.err};
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

/// The sample archive (one relu kernel accepted, others unreviewed or rejected), imported by kx.
std::string sampleArchive(const TemporaryDir &dir)
{
    const std::string path = dir.filePath("a.kxdb");
    const auto imported = runKx({"archive", "import", "-a", path, kSample});
    REQUIRE_MESSAGE(imported.exitCode == kx::cli::Ok, imported.err);
    return path;
}

/// The candidate as `kx archive show --json` prints it.
nlohmann::json shown(const std::string &archive, const std::string &id)
{
    const auto show = runKx({"archive", "show", "-a", archive, "--json", id});
    REQUIRE(show.exitCode == kx::cli::Ok);
    return nlohmann::json::parse(show.out);
}

} // namespace

TEST_CASE("kx export writes an accepted kernel's folder and prints what it wrote")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const fs::path output = dir.filePath("exports");
    const auto exported = runKx({"export", kAccepted.substr(0, 8), "-a", archive, "-o", output.string()});
    INFO(exported.err);
    REQUIRE(exported.exitCode == kx::cli::Ok);

    const fs::path folder = output / "relu_e8fbd32f7a1f";
    CHECK(contains(exported.out, "exported e8fbd32f7a1f to " + folder.string() + "\n"));
    for (const char *name : {"kernel.cu", "launch_plan.json", "extension.cpp"})
        CHECK_MESSAGE(contains(exported.out, "  " + (folder / name).string() + "\n"), name);
    CHECK(kx::test::folderEntries(output) == std::vector<std::string>{"relu_e8fbd32f7a1f"});
    CHECK(kx::test::folderEntries(folder) == std::vector<std::string>{"extension.cpp", "kernel.cu", "launch_plan.json"});

    const auto candidate = shown(archive, kAccepted);
    CHECK(kx::test::readFile(folder / "kernel.cu") == candidate.at("source").get<std::string>());
    CHECK(kx::test::readFile(folder / "launch_plan.json") == candidate.at("launchPlan").get<std::string>());
    const std::string extension = kx::test::readFile(folder / "extension.cpp");
    CHECK(contains(extension, "#include <torch/extension.h>"));
    CHECK(contains(extension, "cudaLaunchKernel(reinterpret_cast<const void *>(&relu_kernel)"));
    CHECK(contains(extension, "PYBIND11_MODULE"));

    // The folder exists now: refused and left alone without --force; its files replaced with it.
    REQUIRE(kx::test::writeFile(folder / "kernel.cu", "// edited by hand"));
    const auto again = runKx({"export", kAccepted, "-a", archive, "-o", output.string()});
    CHECK(again.exitCode == kx::cli::Failure);
    CHECK(contains(again.err, "not empty"));
    CHECK(contains(again.err, "--force"));
    CHECK(again.out.empty());
    CHECK(kx::test::readFile(folder / "kernel.cu") == "// edited by hand");
    const auto forced = runKx({"export", kAccepted, "-a", archive, "-o", output.string(), "--force"});
    CHECK(forced.exitCode == kx::cli::Ok);
    CHECK(kx::test::readFile(folder / "kernel.cu") == candidate.at("source").get<std::string>());
    CHECK(kx::test::folderEntries(folder) == std::vector<std::string>{"extension.cpp", "kernel.cu", "launch_plan.json"});
}

TEST_CASE("kx export refuses a kernel without an accepted verdict (exit 1) and writes nothing")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    const fs::path output = dir.filePath("exports");
    // befc282a is unreviewed; 109d0939 is rejected.
    for (const std::string &id : {kUnreviewed.substr(0, 12), std::string("109d0939b5e6")}) {
        const auto refused = runKx({"export", id, "-a", archive, "-o", output.string()});
        CHECK(refused.exitCode == kx::cli::Failure);
        CHECK(contains(refused.err, "only accepted kernels are exported; " + id + " has no accepted verdict"));
        CHECK(contains(refused.err, "kx verdict " + id + " --accept"));
        CHECK(refused.out.empty());
    }
    CHECK_FALSE(fs::exists(output));

    // An id that names nothing fails as in the other commands; an unreadable archive is bad input.
    const auto unknown = runKx({"export", "ffffffff", "-a", archive, "-o", output.string()});
    CHECK(unknown.exitCode == kx::cli::Failure);
    CHECK(contains(unknown.err, "no candidate"));
    CHECK(runKx({"export", kAccepted, "-a", dir.filePath("missing.kxdb"), "-o", output.string()}).exitCode
          == kx::cli::BadInput);
    CHECK(runKx({"export", kAccepted, "-a", archive}).exitCode == kx::cli::Usage); // -o is required
    CHECK_FALSE(fs::exists(output));
}

TEST_CASE("kx export refuses an accepted kernel whose plan it cannot launch (exit 3)")
{
    TemporaryDir dir;
    const std::string archive = sampleArchive(dir);
    // An accepted relu candidate whose plan calls a library op instead of a kernel.
    kx::Candidate library;
    library.opName = "relu";
    library.source = "extern \"C\" __global__ void relu_kernel(const float* x, float* out, long n) {}";
    library.launchPlan = R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})";
    library.id = kx::makeCandidateId(library.source, library.launchPlan);
    library.origin = kx::Origin::Manual;
    {
        auto opened = kx::Archive::open(archive);
        REQUIRE(opened);
        auto tx = (*opened)->begin();
        REQUIRE((*opened)->addCandidate(tx, library));
        kx::Verdict accepted;
        accepted.candidateId = library.id;
        accepted.accepted = true;
        accepted.reasonCode = "verified-speedup";
        (*opened)->addVerdict(tx, accepted);
        tx.commit();
    }
    const fs::path output = dir.filePath("exports");
    const auto refused = runKx({"export", library.id, "-a", archive, "-o", output.string()});
    CHECK(refused.exitCode == kx::cli::BadInput);
    CHECK(contains(refused.err, "library step"));
    CHECK_FALSE(fs::exists(output));
}
