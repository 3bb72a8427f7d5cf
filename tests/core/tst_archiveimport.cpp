// `kx archive import` with files that are not good exports: each exits 3 with a message that names the file
// and what is wrong, and leaves no archive behind that was not there before.
#include "childprocess.h"
#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <filesystem>

namespace {

using kx::test::TemporaryDir;

const std::string kData = KX_TEST_DATA_DIR "/archive/";

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

kx::test::ProgramResult runKx(const std::vector<std::string> &arguments)
{
    std::vector<std::string> argv{KX_CLI};
    argv.insert(argv.end(), arguments.begin(), arguments.end());
    return kx::test::runProgram(argv, {}, std::chrono::seconds(60));
}

} // namespace

TEST_CASE("malformed exports exit 3, name the file and what is wrong, and create no archive")
{
    TemporaryDir dir;
    // An op whose recipe nests 80,000 levels deep: 160 KB that used to crash the import (recursing while it
    // turned the recipe back into text).
    const std::string deep = dir.filePath("deep.json");
    REQUIRE(kx::test::writeFile(deep, R"({"format": "kernel-explorer-archive", "version": 2, "runs": [], )"
                                      R"("candidates": [], "ops": [{"name": "x", "recipe": )"
                                          + std::string(80000, '[') + std::string(80000, ']') + "}]}"));
    const std::string deepArray = dir.filePath("deep-array.json");
    REQUIRE(kx::test::writeFile(deepArray, std::string(80000, '[') + std::string(80000, ']')));
    const std::string folder = dir.filePath("folder.json");
    std::filesystem::create_directory(folder);

    const struct
    {
        const char *name;
        std::string file;
        std::string expected;
    } rows[] = {
        {"nested too deeply", deep, "nest deeper than 256 levels"},
        {"an array nested too deeply", deepArray, "line 1, column 257: arrays and objects nest deeper"},
        {"format is a number", kData + "format-number.json", "\"format\" is 5, expected \"kernel-explorer-archive\""},
        {"version is a string", kData + "version-string.json", "\"version\" is \"1\", not a positive whole number"},
        {"number out of range", kData + "number-overflow.json", "1e400"},
        {"a folder", folder, "is a folder"},
        {"lists that are not lists", kData + "ops-not-a-list.json", "\"ops\" is an object, not an array"},
        {"a bad candidate", kData + "bad-candidate.json", "candidates[0]: type must be string"},
        {"missing file", dir.filePath("missing.json"), "No such file"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const std::string archive = dir.filePath("new.kxdb");
            const auto result = runKx({"archive", "import", "-a", archive, row.file});
            CHECK_MESSAGE(result.exitCode == 3,
                          "exit " << result.exitCode << " signal " << result.signal << ": " << result.err);
            CHECK(result.err.rfind("kx: ", 0) == 0);
            CHECK_MESSAGE(contains(result.err, row.file), result.err);
            CHECK_MESSAGE(contains(result.err, row.expected), result.err);
            CHECK_FALSE(contains(result.err, "[json.exception"));
            for (const std::string &file : {archive, archive + "-wal", archive + "-shm"})
                CHECK_MESSAGE(!kx::test::fileExists(file), file << " was left behind");
        }
    }
}

TEST_CASE("a failed import into an existing archive keeps it")
{
    TemporaryDir dir;
    const std::string archive = dir.filePath("a.kxdb");
    REQUIRE(runKx({"archive", "import", "-a", archive, KX_TEST_DATA_DIR "/sample-archive.json"}).exitCode == 0);
    const auto result = runKx({"archive", "import", "-a", archive, kData + "bad-candidate.json"});
    CHECK(result.exitCode == 3);
    CHECK(kx::test::fileExists(archive));
    const auto info = runKx({"archive", "info", "-a", archive});
    CHECK(info.exitCode == 0);
    CHECK(contains(info.out, "candidates:   5"));
}
