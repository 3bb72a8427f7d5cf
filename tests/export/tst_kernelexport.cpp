// Exporting an accepted kernel: the .cu, the launch plan and a PyTorch extension that launches it, written at once.
#include "core/export/extensionsource.h"
#include "core/export/kernelexport.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>

#include <sys/resource.h>

namespace fs = std::filesystem;
using namespace kx;
using kx::test::TemporaryDir;

namespace {

const char kAccepted[] = "e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c";
const char kUnreviewed[] = "befc282af6a7f5aa3b7f11ff4a69e94620eb702fdda8d950578f8a5ff9d3abcc";
const char kTranslated[] = "adf9f184100be56fb77740bb17870407d2917ee0e59456e5184a120f48e8e68e";

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

/// The sample archive (relu): an accepted kernel, unreviewed ones and their op.
struct Sample
{
    TemporaryDir dir;
    std::unique_ptr<Archive> archive;
    Candidate accepted;
    Op op;

    Sample()
    {
        REQUIRE(dir.isValid());
        auto opened = Archive::open(dir.filePath("sample.kxdb"));
        REQUIRE(opened);
        archive = std::move(*opened);
        std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
        REQUIRE(importArchive(*archive, nlohmann::json::parse(in)));
        accepted = *archive->candidate(kAccepted);
        op = *archive->op("relu");
    }

    std::optional<Verdict> acceptance() const { return archive->currentVerdict(kAccepted); }
};

/// Files written past this many bytes fail with EFBIG (instead of SIGXFSZ) while it lives: a disk that fills up.
class FileSizeLimit
{
public:
    explicit FileSizeLimit(rlim_t bytes)
    {
        m_handler = std::signal(SIGXFSZ, SIG_IGN);
        ::getrlimit(RLIMIT_FSIZE, &m_saved);
        rlimit limit = m_saved;
        limit.rlim_cur = bytes;
        m_active = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
    }
    ~FileSizeLimit()
    {
        ::setrlimit(RLIMIT_FSIZE, &m_saved);
        std::signal(SIGXFSZ, m_handler);
    }
    bool active() const { return m_active; }

private:
    rlimit m_saved{};
    void (*m_handler)(int) = nullptr;
    bool m_active = false;
};

} // namespace

TEST_CASE("writes the source, the plan and the extension into <op>_<short id>")
{
    Sample sample;
    const std::string parent = sample.dir.filePath("export1");
    const auto result = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent);
    REQUIRE_MESSAGE(result, (result ? "" : result.error().message));
    CHECK(result->folder.rfind(parent, 0) == 0);
    CHECK(fs::path(result->folder).filename() == "relu_" + std::string(kAccepted).substr(0, 12));
    CHECK(exportFolderName(sample.accepted, sample.op) == "relu_e8fbd32f7a1f");
    REQUIRE(result->files.size() == 3);
    const fs::path folder = result->folder;
    for (const char *name : {"kernel.cu", "launch_plan.json", "extension.cpp"}) {
        CHECK_MESSAGE(fs::exists(folder / name), name);
        CHECK(std::count(result->files.begin(), result->files.end(), (folder / name).string()) == 1);
    }
    CHECK(kx::test::readFile(folder / "kernel.cu") == sample.accepted.source);
    CHECK(kx::test::readFile(folder / "launch_plan.json") == sample.accepted.launchPlan);
    const std::string extension = kx::test::readFile(folder / "extension.cpp");
    CHECK(contains(extension, "torch.utils.cpp_extension"));
    CHECK(contains(extension, "Limits:"));
    CHECK(contains(extension, "PYBIND11_MODULE"));
    CHECK(extension == *extensionSource(sample.accepted, sample.op));
    // Written beside the folder first, then renamed: nothing else is left in the parent.
    CHECK(kx::test::folderEntries(parent) == std::vector<std::string>{"relu_e8fbd32f7a1f"});
}

TEST_CASE("an existing folder of the name: refused when it holds something, its files replaced when asked")
{
    Sample sample;
    const std::string parent = sample.dir.filePath("export");
    const auto first = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent);
    REQUIRE(first);
    const fs::path folder = first->folder;
    REQUIRE(kx::test::writeFile(folder / "kernel.cu", "// edited by hand"));
    REQUIRE(kx::test::writeFile(folder / "build.log", "kept"));

    const auto refused = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent);
    REQUIRE_FALSE(refused);
    CHECK(contains(refused.error().message, "not empty"));
    CHECK(contains(refused.error().message, folder.string()));
    CHECK(kx::test::readFile(folder / "kernel.cu") == "// edited by hand");

    // Exporting again with ReplaceFiles overwrites the same folder's files and leaves the others.
    const auto again =
        exportKernel(sample.accepted, sample.op, sample.acceptance(), parent, ExistingFolder::ReplaceFiles);
    REQUIRE(again);
    CHECK(again->folder == first->folder);
    CHECK(again->files == first->files);
    CHECK(kx::test::readFile(folder / "kernel.cu") == sample.accepted.source);
    CHECK(kx::test::readFile(folder / "build.log") == "kept");
    CHECK(kx::test::folderEntries(parent) == std::vector<std::string>{"relu_e8fbd32f7a1f"});
    CHECK(kx::test::folderEntries(folder) == std::vector<std::string>{"build.log", "extension.cpp", "kernel.cu", "launch_plan.json"});
}

TEST_CASE("an empty folder of the name is taken; a file of the name is refused")
{
    Sample sample;
    const fs::path parent = sample.dir.filePath("export");
    fs::create_directories(parent / "relu_e8fbd32f7a1f");
    const auto taken = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent.string());
    REQUIRE(taken);
    CHECK(kx::test::folderEntries(taken->folder).size() == 3);

    const fs::path other = sample.dir.filePath("other");
    fs::create_directories(other);
    REQUIRE(kx::test::writeFile(other / "relu_e8fbd32f7a1f", "a file"));
    const auto refused =
        exportKernel(sample.accepted, sample.op, sample.acceptance(), other.string(), ExistingFolder::ReplaceFiles);
    REQUIRE_FALSE(refused);
    CHECK(contains(refused.error().message, "is not a folder"));
    CHECK(kx::test::folderEntries(other) == std::vector<std::string>{"relu_e8fbd32f7a1f"});
}

TEST_CASE("a failure while writing leaves no half folder, and no parent folder it created")
{
    Sample sample;
    const fs::path parent = fs::path(sample.dir.filePath("new")) / "deeper";
    const std::string extension = *extensionSource(sample.accepted, sample.op);
    // kernel.cu and launch_plan.json fit under the limit, extension.cpp does not: the disk fills up on the third.
    const std::size_t limit = std::max(sample.accepted.source.size(), sample.accepted.launchPlan.size()) + 1;
    REQUIRE(extension.size() > limit);
    Expected<WrittenFolder> result = Error{"not run"};
    {
        FileSizeLimit full(limit);
        REQUIRE(full.active());
        result = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent.string());
    }
    REQUIRE_FALSE(result);
    CHECK_MESSAGE(contains(result.error().message, "extension.cpp"), result.error().message);
    CHECK_FALSE(fs::exists(sample.dir.filePath("new")));
    for (const std::string &name : kx::test::folderEntries(sample.dir.path()))
        CHECK_MESSAGE(name.rfind("sample.kxdb", 0) == 0, name); // the archive's files only

    // Replacing the files of an existing export: a failure leaves its files as they were.
    const auto first = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent.string());
    REQUIRE(first);
    REQUIRE(kx::test::writeFile(first->files.front(), "// edited by hand"));
    {
        FileSizeLimit full(limit);
        REQUIRE(full.active());
        result = exportKernel(sample.accepted, sample.op, sample.acceptance(), parent.string(),
                              ExistingFolder::ReplaceFiles);
    }
    REQUIRE_FALSE(result);
    CHECK(kx::test::readFile(first->files.front()) == "// edited by hand");
    CHECK(kx::test::folderEntries(parent) == std::vector<std::string>{"relu_e8fbd32f7a1f"});
}

TEST_CASE("the extension binds shapes and launches the plan's kernels")
{
    Sample sample;
    const auto source = extensionSource(sample.accepted, sample.op);
    REQUIRE(source);
    const std::string &text = *source;
    // The fixed part comes from the compiled-in prelude: the extension's includes and the launch helpers.
    CHECK(contains(text, "#include <torch/extension.h>"));
    CHECK(contains(text, "inline int64_t ceil_div(int64_t a, int64_t b)"));
    CHECK_FALSE(contains(text, "#error"));
    // The kernel's host stub, declared with its parameters, launched through the runtime API.
    CHECK(contains(text, "void relu_kernel(const float*  x, float*  out, long n);"));
    CHECK(contains(text, "cudaLaunchKernel(reinterpret_cast<const void *>(&relu_kernel)"));
    // N comes from the input's shape at run time; grid/block from the plan (264 x 1024).
    CHECK(contains(text, "const int64_t N = x.size(0);"));
    CHECK(contains(text, "const dim3 grid(dim(264), dim(1), dim(1));"));
    CHECK(contains(text, "const dim3 block(dim(1024), dim(1), dim(1));"));
    CHECK(contains(text, "long a2 = static_cast<long>(N);"));
    CHECK(contains(text, "torch::Tensor out = torch::empty({N}"));
    CHECK(contains(text, "torch::Tensor forward(const torch::Tensor &x)"));

    // Expressions survive as expressions: the translated kernel's grid is ceil_div(N, 256).
    const Candidate translated = *sample.archive->candidate(kTranslated);
    const auto other = extensionSource(translated, sample.op);
    REQUIRE(other);
    CHECK(contains(*other, "const dim3 grid(dim(ceil_div(N, 256)), dim(1), dim(1));"));
}

TEST_CASE("refuses kernels without an accepted verdict in force, before writing anything")
{
    Sample sample;
    const Candidate unreviewed = *sample.archive->candidate(kUnreviewed);
    const std::string parent = sample.dir.filePath("export2");
    auto result = exportKernel(unreviewed, sample.op, std::nullopt, parent);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "accepted"));
    CHECK(contains(result.error().message, "befc282af6a7"));
    Verdict rejected;
    rejected.accepted = false;
    rejected.reasonCode = "incorrect";
    CHECK_FALSE(exportKernel(unreviewed, sample.op, rejected, parent));
    Verdict retracted = *sample.acceptance();
    retracted.retracted = true;
    CHECK_FALSE(exportKernel(sample.accepted, sample.op, retracted, parent));
    CHECK_FALSE(isExportable(std::nullopt));
    CHECK_FALSE(isExportable(rejected));
    CHECK_FALSE(isExportable(retracted));
    CHECK(isExportable(sample.acceptance()));
    CHECK_FALSE(fs::exists(parent));
}

TEST_CASE("refuses plans it cannot launch")
{
    Sample sample;
    Candidate library = sample.accepted;
    library.launchPlan = R"({"steps": [{"library": "aten::relu", "args": [{"input": "x"}, {"output": "out"}]}]})";
    auto result = extensionSource(library, sample.op);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "library step"));

    Candidate broken = sample.accepted;
    broken.launchPlan = "{not json";
    result = extensionSource(broken, sample.op);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "launch plan is invalid"));

    Candidate missingKernel = sample.accepted;
    missingKernel.source = "extern \"C\" __global__ void other(const float* x, float* out, long n) {}";
    result = extensionSource(missingKernel, sample.op);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "relu_kernel"));

    // The extension launches plain grids with pointers and numbers: no clusters, no tensor maps to encode.
    Candidate clustered = sample.accepted;
    clustered.launchPlan = R"json({"steps": [{"kernel": "relu_kernel", "grid": ["2 * ceil_div(N, 512)"],
        "block": ["256"], "cluster": ["2"], "args": [{"input": "x"}, {"output": "out"}, {"int": "N"}]}]})json";
    result = extensionSource(clustered, sample.op);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "step 1 (relu_kernel) launches in clusters"));

    Candidate mapped = sample.accepted;
    mapped.launchPlan = R"json({"steps": [{"kernel": "relu_kernel", "grid": ["ceil_div(N, 256)"], "block": ["256"],
        "args": [{"tensorMap": "x", "box": ["64"]}, {"output": "out"}, {"int": "N"}]}]})json";
    result = extensionSource(mapped, sample.op);
    REQUIRE_FALSE(result);
    CHECK(contains(result.error().message, "step 1 (relu_kernel) takes a tensor map"));

    // Accepted or not, such a kernel leaves nothing on the disk.
    const std::string parent = sample.dir.filePath("export3");
    for (const Candidate *candidate : {&library, &broken, &missingKernel, &clustered, &mapped})
        CHECK_FALSE(exportKernel(*candidate, sample.op, sample.acceptance(), parent));
    CHECK_FALSE(fs::exists(parent));
}

TEST_CASE("names become C++ identifiers and folder names")
{
    CHECK(exportIdentifier("relu") == "relu");
    CHECK(exportIdentifier("kb/19_ReLU") == "kb_19_ReLU");
    CHECK(exportIdentifier("layer norm-2") == "layer_norm_2");
    CHECK(exportIdentifier("19_ReLU") == "_19_ReLU");
    CHECK(exportIdentifier("") == "_");
    CHECK(exportIdentifier("../x") == "___x");
    // One '_' a character, however many bytes its UTF-8 takes.
    CHECK(exportIdentifier("gr\xC3\xB6\xC3\x9F"
                           "e")
          == "gr__e");
    CHECK(exportIdentifier("\xF0\x9F\x94\xA5x") == "_x");

    Op op;
    op.name = "kb/19_ReLU";
    Candidate candidate;
    candidate.id = kAccepted;
    CHECK(exportFolderName(candidate, op) == "kb_19_ReLU_e8fbd32f7a1f");
}
