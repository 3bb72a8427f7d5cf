// splitCommandLine: a worker command typed by a person, split as a shell would, without running anything.
#include "core/util/commandline.h"

#include <doctest/doctest.h>

#include <cstdlib>

using kx::splitCommandLine;
using Words = std::vector<std::string>;

TEST_CASE("words, quotes and variables")
{
    CHECK(*splitCommandLine("kx worker") == Words{"kx", "worker"});
    CHECK(*splitCommandLine("  ssh   gpu-box  kx worker ") == Words{"ssh", "gpu-box", "kx", "worker"});
    CHECK(*splitCommandLine("'/opt/Kernel Explorer/kx' worker") == Words{"/opt/Kernel Explorer/kx", "worker"});
    CHECK(*splitCommandLine("ssh gpu \"kx worker\"") == Words{"ssh", "gpu", "kx worker"});
    CHECK(*splitCommandLine("a\\ b") == Words{"a b"});
    ::setenv("KX_TEST_HOST", "box7", 1);
    CHECK(*splitCommandLine("ssh $KX_TEST_HOST kx worker") == Words{"ssh", "box7", "kx", "worker"});
}

TEST_CASE("what a shell would run otherwise is refused with a reason")
{
    const auto refused = [](const char *text) {
        const auto words = splitCommandLine(text);
        REQUIRE(!words);
        return words.error().message;
    };
    CHECK(refused("").find("empty") != std::string::npos);
    CHECK(refused("   ").find("empty") != std::string::npos);
    CHECK(refused("kx worker; rm -rf ~").find("unquoted") != std::string::npos);
    CHECK(refused("kx worker | tee log").find("unquoted") != std::string::npos);
    CHECK(refused("ssh $(hostname) kx worker").find("command substitution") != std::string::npos);
    CHECK(refused("ssh `hostname` kx worker").find("command substitution") != std::string::npos);
    CHECK(refused("ssh 'gpu kx worker").find("quotes") != std::string::npos);
    ::unsetenv("KX_TEST_UNSET_VARIABLE");
    CHECK(refused("ssh $KX_TEST_UNSET_VARIABLE kx").find("not set") != std::string::npos);
}
