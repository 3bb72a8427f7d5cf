// The device-only check reads candidates as NVRTC's preprocessor does: preprocessor tricks cannot hide host code
// from it, and no input crashes it or makes it run long (deep nesting, macros that multiply tokens).
#include "core/plan/cudapreprocessor.h"
#include "core/plan/devicecodecheck.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"

#include "testfiles.h"

#include <doctest/doctest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

using namespace kx;

namespace {

std::string fixture(const std::string &name)
{
    const std::string text = test::readFile(std::string(KX_TEST_DATA_DIR) + "/devicecode/" + name);
    REQUIRE_MESSAGE(!text.empty(), name);
    return text;
}

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

std::string repeated(const std::string &part, int times)
{
    std::string text;
    text.reserve(part.size() * std::size_t(times));
    for (int i = 0; i < times; ++i)
        text += part;
    return text;
}

// The check's verdict, or the end of the suite when it does not come within the deadline: a hung check cannot
// be stopped from here, and the old exponential one would not finish for hours.
Status checkWithin(const std::string &source, std::chrono::seconds deadline, const CudaPreprocessOptions &options = {})
{
    auto verdict = std::make_shared<std::promise<Status>>();
    auto future = verdict->get_future();
    std::thread([verdict, source, options] { verdict->set_value(checkDeviceOnly(source, options)); }).detach();
    if (future.wait_for(deadline) != std::future_status::ready) {
        std::fprintf(stderr, "the device-only check did not finish within %lld s\n",
                     static_cast<long long>(deadline.count()));
        std::_Exit(1);
    }
    return future.get();
}

struct Rejected
{
    std::string file;
    std::vector<std::string> expected; // Lines of the check's message.
};

} // namespace

TEST_CASE("preprocessor tricks do not hide host code")
{
    const std::vector<Rejected> cases = {
        {"redefined-in-else.cu", {"line 7: host function helper not allowed"}},
        {"variadic-wrapper.cu", {"line 3: host function main not allowed"}},
        {"token-pasting.cu", {"line 3: host function main not allowed"}},
        {"comment-into-if0.cu", {"line 3: host function main not allowed"}},
        {"digraphs.cu", {"line 3: host function main not allowed"}},
        {"parenthesised-name.cu", {"line 2: host function main not allowed"}},
        {"multi-declarators.cu",
         {"line 2: host variable cursor not allowed", "line 3: host function main not allowed"}},
        {"function-pointers.cu", {"line 2: host variable hook not allowed", "line 3: host variable table not allowed"}},
        {"struct-members.cu",
         {"line 3: host function Launcher::launch not allowed", "line 4: host variable Launcher::calls not allowed",
          "line 6: host function make not allowed", "line 7: host variable state not allowed"}},
    };
    for (const Rejected &rejected : cases) {
        CAPTURE(rejected.file);
        const Status status = checkWithin(fixture(rejected.file), std::chrono::seconds(20));
        REQUIRE_FALSE(status);
        const std::string &message = status.error().message;
        for (const std::string &line : rejected.expected)
            CHECK_MESSAGE(contains(message, line), message);
        CHECK_FALSE(contains(message, "host function k "));
    }
}

TEST_CASE("device code written with the same tricks passes, and its kernel is found")
{
    const std::string source = fixture("device-tricks.cu");
    const Status status = checkWithin(source, std::chrono::seconds(20));
    CHECK_MESSAGE(status, (status ? "" : status.error().message));
    const std::vector<KernelSignature> kernels = parseKernelSignatures(source);
    REQUIRE(kernels.size() == 1);
    CHECK(kernels[0].name == "k");
    REQUIRE(kernels[0].params.size() == 1);
    CHECK(kernels[0].params[0].name == "y");
    if (NvrtcCompiler::available()) {
        const CompileResult compiled = NvrtcCompiler().compile(source);
        CHECK_MESSAGE(compiled.ok, compiled.stats.log);
    }
}

TEST_CASE("#if groups are decided for the architecture that is compiled for")
{
    const std::string source =
        "#if __CUDA_ARCH__ >= 800 && defined(__CUDACC_RTC__)\n#define D __device__\n#else\n#define D\n"
        "#endif\nD int helper() { return 1; }\n";
    CudaPreprocessOptions ampere;
    ampere.arch = "sm_80";
    CHECK(checkDeviceOnly(source, ampere));
    CudaPreprocessOptions volta;
    volta.arch = "sm_70";
    const Status status = checkDeviceOnly(source, volta);
    REQUIRE_FALSE(status);
    CHECK(contains(status.error().message, "line 6: host function helper not allowed"));
}

TEST_CASE("deep nesting is an error that says so, never a crash")
{
    struct Deep
    {
        std::string name;
        std::string source;
        std::string expected;
    };
    const std::vector<Deep> cases = {
        {"namespaces", repeated("namespace a {\n", 100000),
         "line 257: namespaces, extern \"C\" blocks and types nested "
         "deeper than 256 levels"},
        {"extern C blocks", repeated("extern \"C\" {", 100000), "nested deeper than 256 levels"},
        {"types", repeated("struct a {", 100000), "nested deeper than 256 levels"},
        {"#if parentheses", "#if " + repeated("(", 100000) + "1" + repeated(")", 100000) + "\n#endif\n",
         "#if expression nested deeper than 256 levels"},
        {"#if negations", "#if " + repeated("!", 100000) + "1\n#endif\n",
         "#if expression nested deeper than 256 levels"},
        {"macro arguments", "#define F(x) x\nint v = " + repeated("F(", 1000) + "1" + repeated(")", 1000) + ";\n",
         "macro calls nested deeper than 256 levels in arguments"},
        // Each level copies the arguments within it: that counts against the limit on produced tokens.
        {"long macro arguments",
         "#define F(x) x\nint v = " + repeated("F(", 100000) + "1" + repeated(")", 100000) + ";\n",
         "macros expand to more than"},
    };
    for (const Deep &deep : cases) {
        CAPTURE(deep.name);
        const Status status = checkWithin(deep.source, std::chrono::seconds(20));
        REQUIRE_FALSE(status);
        CHECK_MESSAGE(contains(status.error().message, deep.expected), status.error().message);
        // The kernel listing reads the same source: it finds nothing rather than crashing.
        CHECK(parseKernelSignatures(deep.source).empty());
    }
}

TEST_CASE("macros that multiply tokens finish quickly")
{
    // A macro that names itself 17 times is replaced once (its own name is not expanded again) ...
    const Status fanout = checkWithin(fixture("macro-fanout.cu"), std::chrono::seconds(10));
    REQUIRE_FALSE(fanout);
    CHECK_MESSAGE(contains(fanout.error().message, "line 2: "), fanout.error().message);
    // ... and macros that double each other stop at the check's limit.
    const Status doubling = checkWithin(fixture("macro-doubling.cu"), std::chrono::seconds(20));
    REQUIRE_FALSE(doubling);
    CHECK_MESSAGE(contains(doubling.error().message, "line 43: macros expand to more than"), doubling.error().message);
    // Many ordinary macro uses are no problem: the limit grows with the source.
    std::string source = "#define DEV __device__\n#define ADD(a, b) ((a) + (b))\n";
    for (int i = 0; i < 20000; ++i)
        source += "DEV int f" + std::to_string(i) + "(int x) { return ADD(x, " + std::to_string(i) + "); }\n";
    const Status many = checkWithin(source, std::chrono::seconds(20));
    CHECK_MESSAGE(many, (many ? "" : many.error().message));
}

TEST_CASE("the preprocessor follows the C++ rules for macros")
{
    const auto text = [](const std::string &source) {
        const auto tokens = preprocessCuda(source);
        REQUIRE_MESSAGE(tokens, (tokens ? "" : tokens.error().message));
        std::string joined;
        for (const CudaToken &token : *tokens)
            joined += (joined.empty() ? "" : " ") + token.text;
        return joined;
    };
    // The standard's own examples (C++ [cpp.rescan], [cpp.subst]).
    CHECK(text("#define f(a) a*g\n#define g(a) f(a)\nf(2)(9)") == "2 * 9 * g");
    const std::string standard = "#define x 3\n#define f(a) f(x * (a))\n#undef x\n#define x 2\n#define g f\n"
                                 "#define z z[0]\n#define h g(~\n#define m(a) a(w)\n#define w 0,1\n#define t(a) a\n"
                                 "#define p() int\n#define q(x) x\n#define r(x,y) x ## y\n#define str(x) # x\n";
    CHECK(text(standard + "f(y+1) + f(f(z)) % t(t(g)(0) + t)(1);")
          == "f ( 2 * ( y + 1 ) ) + f ( 2 * ( f ( 2 * ( z [ 0 ] ) ) ) ) % f ( 2 * ( 0 ) ) + t ( 1 ) ;");
    CHECK(text(standard + "g(x+(3,4)-w) | h 5) & m\n(f)^m(m);")
          == "f ( 2 * ( 2 + ( 3 , 4 ) - 0 , 1 ) ) | f ( 2 * ( ~ 5 ) ) & f ( 2 * ( 0 , 1 ) ) ^ m ( 0 , 1 ) ;");
    CHECK(text(standard + "p() i[q()] = { q(1), r(2,3), r(4,), r(,5), r(,) };")
          == "int i [ ] = { 1 , 23 , 4 , 5 , } ;");
    CHECK(text(standard + "char c[2][6] = { str(hello), str() };") == "char c [ 2 ] [ 6 ] = { \"hello\" , \"\" } ;");
    CHECK(text("#define str(s) # s\n#define xstr(s) str(s)\n#define INCFILE(n) vers ## n\nxstr(INCFILE(2).h)")
          == "\"vers2.h\"");
    CHECK(text("#define F(...) f(0 __VA_OPT__(,) __VA_ARGS__)\nF(a, b) F()") == "f ( 0 , a , b ) f ( 0 )");
    CHECK(text("#define E(fmt, ...) e(fmt, ## __VA_ARGS__)\nE(x) E(x, y)") == "e ( x ) e ( x , y )");
    CHECK(text("#define A A B\n#define B A\nA") == "A A");
    CHECK(text("a <: 1 :> <% %> %:%: x") == "a [ 1 ] { } # # x");
    CHECK(text("#if defined X || !defined(__CUDACC__) || (0 && 1 / 0)\nno\n#elif (2 > 1) ? 0x10 == 16 : 0\nyes\n#endif")
          == "yes");
    CHECK(text("__LINE__ _Pragma(\"unroll\") __FILE__") == "1 \"candidate.cu\"");
}

TEST_CASE("inline PTX of tensor-core, copy-engine and cluster kernels passes, and compiles for sm_90a")
{
    // The GPU suite tst_sm90launch runs the first two; the third touches every instruction family once.
    CudaPreprocessOptions hopper;
    hopper.arch = "sm_90a";
    for (const char *file : {"tma-relu.cu", "cluster-relu.cu", "inline-ptx.cu"}) {
        CAPTURE(file);
        const std::string source = fixture(file);
        const Status status = checkWithin(source, std::chrono::seconds(20), hopper);
        CHECK_MESSAGE(status, (status ? "" : status.error().message));
        REQUIRE(parseKernelSignatures(source).size() == std::size_t(1));
        if (NvrtcCompiler::available()) {
            CompileOptions options;
            options.arch = "sm_90a";
            const CompileResult compiled = NvrtcCompiler().compile(source, options);
            CHECK_MESSAGE(compiled.ok, compiled.stats.log);
        }
    }
}

TEST_CASE("inline assembly does not make host code device code")
{
    const Status status = checkWithin(fixture("host-inline-asm.cu"), std::chrono::seconds(20));
    REQUIRE_FALSE(status);
    const std::string &message = status.error().message;
    for (const char *line :
         {"line 2: host function escape not allowed", "line 3: host function Launcher::run not allowed",
          "line 4: host function main not allowed"})
        CHECK_MESSAGE(contains(message, line), message);
    CHECK_FALSE(contains(message, "host function k "));
    CHECK_FALSE(contains(message, "both")); // __host__ __device__: NVRTC builds only its device side
}
