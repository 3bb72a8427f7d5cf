// removeTree: the recursive removal used where LibTorch is linked in.
#include "core/util/removetree.h"

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;
using kx::removeTree;

namespace {
fs::path scratch(const char *name)
{
    const auto path = fs::temp_directory_path() / (std::string("kx-removetree-") + name + "-" + std::to_string(::getpid()));
    fs::create_directories(path);
    return path;
}
void touch(const fs::path &file) { std::ofstream(file) << "x"; }
} // namespace

TEST_CASE("a folder goes with everything in it, a link inside goes without its target")
{
    const auto outside = scratch("outside");
    touch(outside / "kept.txt");
    const auto tree = scratch("tree");
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
    const auto folder = scratch("file");
    touch(folder / "one.txt");
    CHECK(removeTree((folder / "one.txt").string()));
    CHECK_FALSE(fs::exists(folder / "one.txt"));
    CHECK(removeTree((folder / "missing").string()));
    CHECK(removeTree(folder.string()));
}
