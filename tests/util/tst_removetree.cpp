// removeTree: the recursive removal used where LibTorch is linked in.
#include "core/util/removetree.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <filesystem>

namespace fs = std::filesystem;
using kx::removeTree;
using kx::test::TemporaryDir;

namespace {
fs::path scratch(const TemporaryDir &temp, const char *name)
{
    const fs::path path = temp.filePath(name);
    fs::create_directories(path);
    return path;
}
void touch(const fs::path &file)
{
    REQUIRE(kx::test::writeFile(file.string(), "x"));
}
} // namespace

TEST_CASE("a folder goes with everything in it, a link inside goes without its target")
{
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto outside = scratch(temp, "outside");
    touch(outside / "kept.txt");
    const auto tree = scratch(temp, "tree");
    fs::create_directories(tree / "a" / "b" / "c");
    touch(tree / "top.txt");
    touch(tree / "a" / "b" / "c" / "deep.txt");
    fs::create_directory_symlink(outside, tree / "a" / "link");

    CHECK(removeTree(tree.string()));
    CHECK_FALSE(fs::exists(tree));
    CHECK(fs::exists(outside / "kept.txt"));
    CHECK(removeTree(outside.string()));
    CHECK_FALSE(fs::exists(outside));
}

TEST_CASE("a single file, and a path that does not exist")
{
    TemporaryDir temp;
    REQUIRE(temp.isValid());
    const auto folder = scratch(temp, "file");
    touch(folder / "one.txt");
    CHECK(removeTree((folder / "one.txt").string()));
    CHECK_FALSE(fs::exists(folder / "one.txt"));
    CHECK(removeTree((folder / "missing").string()));
    CHECK(removeTree(folder.string()));
    CHECK_FALSE(fs::exists(folder));
}
