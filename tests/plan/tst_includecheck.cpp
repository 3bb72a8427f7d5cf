// Candidates cannot read files: the only #include is of an allowed CUDA header, which NVRTC gets from memory,
// and nothing else in the preprocessor reaches the file system. Compile logs keep only compiler diagnostics.
#include "core/plan/compilelog.h"
#include "core/plan/devicecodecheck.h"
#include "core/plan/includecheck.h"
#include "core/plan/nvrtccompiler.h"
#include "core/plan/toolkitheaders.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

using namespace kx;

namespace {

doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

const std::string kMarker = "kx-include-marker-31c7e0";
const std::string kKernel = "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n";

bool contains(const std::string &text, const std::string &part)
{
    return text.find(part) != std::string::npos;
}

// A file outside the toolkit whose text must never reach a log: a candidate that could include it could include
// /proc/self/environ (the API key) as well.
struct SecretFile
{
    SecretFile()
    {
        REQUIRE(dir.isValid());
        path = dir.filePath("secret.h");
        REQUIRE(test::writeFile(path, kMarker + " = 1;\nint " + kMarker.substr(0, 2) + "_value = 2;\n"));
    }
    test::TemporaryDir dir;
    std::string path;
};

struct Bypass
{
    std::string name;
    std::string source;
    std::string expected; // A part of the check's message.
};

std::vector<Bypass> bypasses(const std::string &secret)
{
    const std::string quoted = "\"" + secret + "\"";
    return {
        {"absolute path", "#include " + quoted + "\n" + kKernel, "#include " + quoted},
        {"proc environ", "#include \"/proc/self/environ\"\n" + kKernel, "#include \"/proc/self/environ\""},
        {"angle brackets", "#include <" + secret + ">\n" + kKernel, "#include <" + secret + ">"},
        {"relative path out of the toolkit", "#include \"../../../../../../../../proc/self/environ\"\n" + kKernel,
         "../proc/self/environ"},
        {"header not on the list", "#include <stdio.h>\n" + kKernel, "#include <stdio.h>"},
        {"toolkit header not on the list", "#include <cuda_fp16.hpp>\n" + kKernel, "#include <cuda_fp16.hpp>"},
        {"computed include", "#define H " + quoted + "\n#include H\n" + kKernel, "computed #include"},
        {"computed include with brackets", "#define H <" + secret + ">\n#include H\n" + kKernel, "computed #include"},
        {"text after the header name", "#include <cuda_fp16.h> " + quoted + "\n" + kKernel, "after the header name"},
        {"spaces and a comment before the name", "  #  /* c */ include " + quoted + "\n" + kKernel, secret},
        {"digraph", "%:include " + quoted + "\n" + kKernel, secret},
        {"line splice in the directive", "#inc\\\nlude " + quoted + "\n" + kKernel, secret},
        {"line splice before the header name", "#include \\\n" + quoted + "\n" + kKernel, secret},
        {"after a comment that ends on its line", "/*\n*/ #include " + quoted + "\n" + kKernel, secret},
        {"after code and a comment that ends on its line", "int a; /*\n*/ #include " + quoted + "\n" + kKernel, secret},
        {"inside #if 0", "#if 0\n#include " + quoted + "\n#endif\n" + kKernel, secret},
        {"include_next", "#include_next " + quoted + "\n" + kKernel, "#include_next"},
        {"import", "#import " + quoted + "\n" + kKernel, "#import"},
        {"embed", "static const char data[] = {\n#embed " + quoted + "\n};\n" + kKernel, "#embed"},
        {"has_include", "#if __has_include(" + quoted + ")\n#error exists\n#endif\n" + kKernel, "__has_include"},
        {"has_include_next", "#if __has_include_next(" + quoted + ")\n#endif\n" + kKernel, "__has_include"},
        {"has_include made by token pasting",
         "#define P(a, b) a##b\n#if P(__has_, include)(" + quoted + ")\n#error exists\n#endif\n" + kKernel,
         "__has_include"},
        {"has_include made by pasting in an object-like macro",
         "#define P(a, b) a##b\n#define Q P(__has_, include)\n#if Q(" + quoted + ")\n#endif\n" + kKernel,
         "__has_include"},
        {"line with a file name", "#line 1 " + quoted + "\n" + kKernel, "#line"},
        {"line marker with a file name", "# 1 " + quoted + "\n" + kKernel, "#line"},
    };
}

} // namespace

TEST_CASE("a candidate cannot include a file by any preprocessor route")
{
    SecretFile secret;
    for (const Bypass &bypass : bypasses(secret.path)) {
        CAPTURE(bypass.name);
        const Status status = checkDeviceOnly(bypass.source);
        CHECK_FALSE(status);
        if (status)
            continue;
        const std::string &message = status.error().message;
        CHECK_MESSAGE(contains(message, bypass.expected), message);
        CHECK_MESSAGE(contains(message, "line "), message);
        CHECK_FALSE(contains(message, kMarker));
    }
}

TEST_CASE("a rejected include names the header and the allowed ones")
{
    const Status status = checkDeviceOnly("#include <cuda_fp16.h>\n#include \"/etc/passwd\"\n" + kKernel);
    REQUIRE_FALSE(status);
    const std::string &message = status.error().message;
    CHECK_MESSAGE(contains(message, "line 2: #include \"/etc/passwd\" is not allowed"), message);
    for (const char *allowed : {"cuda_fp16.h", "cuda_bf16.h", "mma.h", "cuda_pipeline.h", "cooperative_groups.h"})
        CHECK_MESSAGE(contains(message, allowed), message);
    CHECK_FALSE(contains(message, "line 1"));
}

TEST_CASE("allowed includes and ordinary preprocessor use pass the check")
{
    for (const std::string &source : {
             "#include <cuda_fp16.h>\n#include \"cuda_bf16.h\"\n#include <mma.h> // tensor cores\n" + kKernel,
             "  #  include   <cooperative_groups.h>\n" + kKernel,
             "#define BLOCK 256\n#define STR(x) #x\n#define CAT(a, b) a##b\n__device__ int CAT(v, 1) = BLOCK;\n"
                 + kKernel,
             "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#define FAST 1\n#elif BLOCK > 2\n#endif\n" + kKernel,
             "#pragma unroll\n#line 40\n// #include \"/etc/passwd\" in a line comment\n" + kKernel,
             "/*\n # of threads per block: 256\n*/\n#define STR(x) \\\n    #x\n#if defined(STR) && "
             "!defined(X)\n#endif\n"
                 + kKernel,
         }) {
        CAPTURE(source);
        const Status status = checkDeviceOnly(source);
        CHECK_MESSAGE(status, (status ? "" : status.error().message));
    }
}

TEST_CASE("NVRTC never reads a file a candidate names" * needsNvrtc())
{
    SecretFile secret;
    for (const Bypass &bypass : bypasses(secret.path)) {
        CAPTURE(bypass.name);
        const CompileResult result = NvrtcCompiler().compile(bypass.source);
        CHECK_FALSE(result.ok);
        CHECK_FALSE(contains(result.stats.log, kMarker));
        CHECK_FALSE(contains(result.error, kMarker));
    }
}

TEST_CASE("compile options cannot add include paths or pre-included files" * needsNvrtc())
{
    SecretFile secret;
    for (const std::vector<std::string> &extra : std::vector<std::vector<std::string>>{
             {"--pre-include=" + secret.path},
             {"-include", secret.path},
             {"--include-path=" + secret.dir.path()},
             {"-I" + secret.dir.path()},
         }) {
        CAPTURE(extra.front());
        CompileOptions options;
        options.extraOptions = extra;
        const CompileResult result = NvrtcCompiler().compile("#include \"secret.h\"\n" + kKernel, options);
        CHECK_FALSE(result.ok);
        CHECK_FALSE(contains(result.stats.log, kMarker));
        CHECK_FALSE(contains(result.error, kMarker));
    }
}

TEST_CASE("every allowed header compiles from memory" * needsNvrtc())
{
    struct Use
    {
        std::string header;
        std::string body;
    };
    const std::vector<Use> uses{
        {"cuda_runtime.h", "y[0] = __fdividef(1.0f, 3.0f);"},
        {"device_launch_parameters.h", "y[0] = float(threadIdx.x);"},
        {"math_constants.h", "y[0] = -CUDART_INF_F + CUDART_PI_F;"},
        {"cuda_fp16.h", "__half a = __float2half(y[0]); y[0] = __half2float(__hadd(a, a));"},
        {"cuda_bf16.h", "__nv_bfloat16 a = __float2bfloat16(y[0]); y[0] = __bfloat162float(a * a);"},
        {"cuda_fp8.h", "__nv_fp8_e4m3 a(y[0]); y[0] = float(a);"},
        {"mma.h", "using namespace nvcuda; wmma::fragment<wmma::accumulator, 16, 16, 16, float> c; "
                  "wmma::fill_fragment(c, 0.0f); wmma::store_matrix_sync(y, c, 16, wmma::mem_row_major);"},
        {"cuda_pipeline.h", "__shared__ float s[32]; __pipeline_memcpy_async(&s[threadIdx.x], &y[threadIdx.x], 4); "
                            "__pipeline_commit(); __pipeline_wait_prior(0); y[0] = s[1];"},
        {"cuda_awbarrier.h", "__shared__ __mbarrier_t bar; if (threadIdx.x == 0) __mbarrier_init(&bar, blockDim.x); "
                             "__syncthreads(); y[0] = 1.0f;"},
        {"cooperative_groups.h", "namespace cg = cooperative_groups; auto block = cg::this_thread_block(); "
                                 "auto warp = cg::tiled_partition<32>(block); y[0] = warp.shfl_down(y[0], 1);"},
        {"cooperative_groups/reduce.h", "namespace cg = cooperative_groups; auto warp = "
                                        "cg::tiled_partition<32>(cg::this_thread_block()); "
                                        "y[0] = cg::reduce(warp, y[0], cg::plus<float>());"},
        {"cooperative_groups/memcpy_async.h", "namespace cg = cooperative_groups; __shared__ float s[64]; "
                                              "auto block = cg::this_thread_block(); "
                                              "cg::memcpy_async(block, s, y, sizeof(float) * 64); cg::wait(block); "
                                              "y[0] = s[3];"},
        {"cuda/barrier", "__shared__ cuda::barrier<cuda::thread_scope_block> *bar; (void)bar; y[0] = 1.0f;"},
        {"cuda/pipeline", "auto pipe = cuda::make_pipeline(); (void)pipe; y[0] = 1.0f;"},
        {"cuda/std/cstdint", "cuda::std::int32_t a = 1; y[0] = float(a);"},
        {"cuda/std/limits", "y[0] = cuda::std::numeric_limits<float>::lowest();"},
        {"cuda/std/type_traits", "y[0] = cuda::std::is_same<int, int>::value ? 1.0f : 0.0f;"},
    };
    for (const Use &use : uses) {
        CAPTURE(use.header);
        const std::string source = "#include <" + use.header
                                   + ">\n"
                                     "extern \"C\" __global__ void k(float* y) { "
                                   + use.body + " }\n";
        const CompileResult result = NvrtcCompiler().compile(source);
        CHECK_MESSAGE(result.ok, result.stats.log);
    }
}

TEST_CASE("a long compile log is cut with a note" * needsNvrtc())
{
    // Every unused variable is a warning with its source line: far more than 16 KiB of log.
    std::string body;
    for (int i = 0; i < 600; ++i)
        body += "int unused_variable_number_" + std::to_string(i) + ";\n";
    const CompileResult result =
        NvrtcCompiler().compile("extern \"C\" __global__ void k(float* y)\n{\n" + body + "}\n");
    CHECK(result.ok);
    CHECK(result.stats.log.size() <= 16 * 1024 + 200);
    CHECK_MESSAGE(contains(result.stats.log, "cut"), result.stats.log.substr(result.stats.log.size() - 300));
    CHECK(contains(result.stats.log, "candidate.cu(3): warning"));
    // The ptxas report comes last; the cut keeps what it needs for the registers.
    CHECK(result.stats.registers > 0);
}

TEST_CASE("the allowed headers are the ones the check names and the compiler has in memory")
{
    const auto &headers = allowedCudaHeaders();
    // The project's own tensor-core template includes mma.h.
    for (const char *needed : {"mma.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_pipeline.h", "cooperative_groups.h"})
        CHECK(std::find(headers.begin(), headers.end(), needed) != headers.end());
    const auto included = checkIncludes("#include <mma.h>\n#include \"cuda_fp16.h\"\n#include <mma.h>\n" + kKernel);
    REQUIRE(included);
    CHECK(*included == std::vector<std::string>{"mma.h", "cuda_fp16.h"});
    if (!NvrtcCompiler::available())
        return;
    const auto inMemory = ToolkitHeaders::forIncludes(*included);
    REQUIRE_MESSAGE(inMemory, (inMemory ? "" : inMemory.error().message));
    std::vector<std::string> names;
    for (const InMemoryHeader *header : *inMemory) {
        names.push_back(header->name);
        CHECK_FALSE(header->text.empty());
    }
    // The allowed header, and the headers it includes under the names its #include lines give.
    CHECK(std::find(names.begin(), names.end(), "mma.h") != names.end());
    CHECK(std::find(names.begin(), names.end(), "cuda_fp16.hpp") != names.end());
    CHECK(std::find(names.begin(), names.end(), "crt/mma.h") != names.end());
    CHECK_FALSE(ToolkitHeaders::forIncludes({"stdio.h"}));
}

TEST_CASE("a compile log keeps only the diagnostics of known files")
{
    const std::string log = "candidate.cu(3): error: identifier \"x\" is undefined\n"
                            "      y[0] = x;\n"
                            "             ^\n"
                            "\n"
                            "/proc/self/environ(1): error: identifier \"sk\" is undefined\n"
                            "  OPENAI_API_KEY=sk-kx-scrub-test PATH=/usr/bin\n"
                            "  ^\n"
                            "\n"
                            "cuda_fp16.hpp(120): warning #177-D: variable \"v\" was declared but never referenced\n"
                            "  int v;\n"
                            "\n"
                            "root:x:0:0:root:/root:/bin/bash\n"
                            "At end of source: error: expected a \";\"\n"
                            "\n"
                            "3 errors detected in the compilation of \"candidate.cu\".\n"
                            "ptxas info    : Used 4 registers\n";
    const std::string scrubbed =
        scrubCompileLog(log, [](std::string_view file) { return file == "candidate.cu" || file == "cuda_fp16.hpp"; });
    CHECK(contains(scrubbed, "candidate.cu(3): error: identifier \"x\" is undefined\n      y[0] = x;"));
    CHECK(contains(scrubbed, "cuda_fp16.hpp(120): warning"));
    CHECK(contains(scrubbed, "At end of source: error"));
    CHECK(contains(scrubbed, "3 errors detected in the compilation of \"candidate.cu\"."));
    CHECK(contains(scrubbed, "ptxas info    : Used 4 registers"));
    CHECK_FALSE(contains(scrubbed, "sk-kx-scrub-test"));
    CHECK_FALSE(contains(scrubbed, "environ"));
    CHECK_FALSE(contains(scrubbed, "\"sk\""));
    CHECK_FALSE(contains(scrubbed, "root:x"));
    CHECK(contains(scrubbed, "4 lines of the log left out"));
    // From an archive, only candidate.cu is known.
    CHECK_FALSE(contains(scrubCompileLog(log), "cuda_fp16.hpp(120)"));
    CHECK(contains(scrubCompileLog(log), "candidate.cu(3): error"));

    std::string longLog;
    while (longLog.size() < 100 * 1024)
        longLog += "candidate.cu(7): warning #177-D: variable \"v\" was declared but never referenced\n  int v;\n\n";
    longLog += "ptxas info    : Used 9 registers\n";
    const std::string cut = scrubCompileLog(longLog);
    CHECK(cut.size() <= kMaxCompileLogBytes + 200);
    CHECK(contains(cut, "[compile log cut: "));
    CHECK(cut.ends_with("ptxas info    : Used 9 registers"));
    CHECK(cut.rfind("candidate.cu(7): warning", 0) == 0);
}
