// NVRTC compilation with the real compiler, the device-only check and ptxas report parsing.
#include "core/plan/devicecodecheck.h"
#include "core/plan/nvrtccompiler.h"
#include "core/plan/ptxasreport.h"

#include <doctest/doctest.h>

#include <regex>
#include <string>
#include <thread>
#include <vector>

using namespace kx;

namespace {

// Cases that compile skip where this build has no NVRTC (no CUDA toolkit was found when it was configured).
doctest::skip needsNvrtc()
{
    return doctest::skip(!NvrtcCompiler::available());
}

const char *kReluSource = R"(
extern "C" __global__ void relu_kernel(const float* __restrict__ x, float* __restrict__ out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = x[i] > 0.f ? x[i] : 0.f;
}
)";

// A report as ptxas writes it (CUDA 13): two kernels and a device function that was not inlined.
const char *kPtxasLog = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'k2' for 'sm_90'
ptxas info    : Function properties for k2
ptxas         .     256 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 26 registers, used 0 barriers, 256 bytes cumulative stack size
ptxas info    : Compile time = 11.617 ms
ptxas info    : Function properties for _Z6helperf
ptxas         .     64 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     1200 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 1200 bytes cumulative stack size, 1024 bytes smem
ptxas info    : Compile time = 9.880 ms
)";

bool startsWith(const std::string &text, const std::string &prefix)
{
    return text.rfind(prefix, 0) == 0;
}

} // namespace

TEST_CASE("reads the ptxas report")
{
    const std::vector<PtxasFunction> functions = parsePtxasReport(kPtxasLog);
    REQUIRE(functions.size() == size_t(3));

    CHECK(functions[0].name == std::string("k2"));
    CHECK(functions[0].entry);
    CHECK(functions[0].registers == 26);
    CHECK(functions[0].stackFrameBytes == 256);
    CHECK(functions[0].cumulativeStackBytes == 256);
    CHECK(functions[0].spillStoreBytes == 8);
    CHECK(functions[0].spillLoadBytes == 8);
    CHECK(functions[0].sharedBytes == 0);

    CHECK(functions[1].name == std::string("_Z6helperf"));
    CHECK(!functions[1].entry);
    CHECK(functions[1].stackFrameBytes == 64);
    CHECK(functions[1].registers == 0);

    CHECK(functions[2].name == std::string("k"));
    CHECK(functions[2].entry);
    CHECK(functions[2].registers == 40);
    CHECK(functions[2].stackFrameBytes == 1200);
    CHECK(functions[2].sharedBytes == 1024);

    CompileStats stats;
    applyPtxasReport(functions, stats);
    CHECK(stats.registers == 40);
    CHECK(stats.spillBytes == 1200);
    CHECK(stats.staticSharedBytes == 1024);
}

TEST_CASE("reads an empty report")
{
    CHECK(parsePtxasReport("candidate.cu(3): error: expected a \";\"\n").empty());
    CompileStats stats;
    applyPtxasReport({}, stats);
    CHECK(stats.registers == 0);
}

TEST_CASE("accepts device-only code")
{
    const struct
    {
        const char *name;
        const char *source;
    } rows[] = {
        {"kernel and device function", "__device__ float twice(float x) { return 2 * x; }\n"
                                       "extern \"C\" __global__ void k(float* y) { y[0] = twice(y[0]); }\n"},
        {"qualifier order and inline", "static __device__ __forceinline__ float f(float x) { return x; }\n"
                                       "__forceinline__ __device__ float g(float x) { return x; }\n"
                                       "__host__ __device__ inline int h(int v) { return v; }\n"},
        {"templates", "template <typename T, int N> __device__ T sum(const T (&v)[N]) { T s{}; "
                      "for (int i = 0; i < N; ++i) s += v[i]; return s; }\n"
                      "template <int B> __global__ void k(float* y) { y[B] = 0; }\n"
                      "template __global__ void k<128>(float*);\n"},
        {"types with members",
         "struct Acc { float v; float get() const { return v; } Acc operator+(Acc o) const { return {v + o.v}; } };\n"
         "enum class Mode : int { A, B };\nunion Bits { float f; unsigned u; };\n"
         "typedef float real;\nusing index_t = int;\nstatic_assert(sizeof(float) == 4, \"float\");\n"},
        {"device memory and constants", "__constant__ float table[4] = {1, 2, 3, 4};\n__device__ int counter;\n"
                                        "extern __shared__ float dynamicShared[];\nconstexpr int kBlock = 256;\n"
                                        "static const float kScale = 0.5f;\n"},
        {"macros for qualifiers", "#define DEVICE_INLINE __device__ __forceinline__\n"
                                  "#define KERNEL extern \"C\" __global__\n"
                                  "DEVICE_INLINE float f(float x) { return x; }\n"
                                  "KERNEL void k(float* y) { y[0] = f(y[0]); }\n"},
        {"namespaces and extern C block",
         "namespace { __device__ float f(float x) { return x; } }\nnamespace detail { __device__ int g(); }\n"
         "extern \"C\" { __global__ void k(float* y) {} }\n"},
        {"host code only in comments and #if 0",
         "// int main() { return 0; }\n/* float helper(float x) { return x; } */\n"
         "#if 0\nint main() { return 0; }\n#endif\n__device__ int f() { return 1; }\n"},
        {"device operator", "__device__ float2 operator+(float2 a, float2 b) { return {a.x + b.x, a.y + b.y}; }\n"},
        {"launch bounds", "extern \"C\" __global__ void __launch_bounds__(256, 2) k(float* y) {}\n"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Status status = checkDeviceOnly(row.source);
            CHECK_MESSAGE(status, (status ? "" : status.error().message));
        }
    }
}

TEST_CASE("rejects host code with its line")
{
    const struct
    {
        const char *name;
        std::string source;
        const char *expected;
    } rows[] = {
        {"main", "int main() { return 0; }\n", "line 1: host function main not allowed"},
        {"main after a kernel", std::string(kReluSource) + "\nint main()\n{\n    return 0;\n}\n",
         "line 9: host function main not allowed"},
        {"unmarked helper", "float twice(float x) { return 2 * x; }\n", "line 1: host function twice not allowed"},
        {"host only", "__host__ void setup() {}\n", "line 1: host function setup not allowed"},
        {"helper in a namespace", "namespace detail {\nint helper() { return 1; }\n}\n",
         "line 2: host function helper not allowed"},
        {"member defined outside its type",
         "struct Acc { float v; float get() const; };\nfloat Acc::get() const { return v; }\n",
         "line 2: host function Acc::get not allowed"},
        {"host operator", "float2 operator-(float2 a, float2 b) { return a; }\n",
         "line 1: host function operator- not allowed"},
        {"host variable", "int counter = 0;\n", "line 1: host variable counter not allowed"},
        {"managed variable", "__managed__ int shared_state;\n", "line 1: managed variable shared_state not allowed"},
        {"every offence listed", "int a;\nint main() { return a; }\n",
         "line 1: host variable a not allowed (use __device__ or __constant__)\n"
         "line 2: host function main not allowed"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            const Status status = checkDeviceOnly(row.source);
            REQUIRE(!status);
            CHECK_MESSAGE(startsWith(status.error().message, row.expected), "got: " << status.error().message);
        }
    }
}

TEST_CASE("reports missing NVRTC" * doctest::skip(NvrtcCompiler::available()))
{
    const CompileResult result = NvrtcCompiler().compile(kReluSource);
    CHECK(!result.ok);
    CHECK(result.error.find("no NVRTC") != std::string::npos);
    CHECK(result.kernels.size() == size_t(1));
}

TEST_CASE("compiles for each architecture" * needsNvrtc())
{
    for (const char *arch : {"sm_80", "sm_90"}) {
        SUBCASE(arch)
        {
            CompileOptions options;
            options.arch = arch;
            const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
            REQUIRE_MESSAGE(result.ok, result.stats.log);
            CHECK(result.error.empty());
            CHECK(result.stats.registers > 0);
            CHECK(result.stats.compileMs > 0);
            CHECK_MESSAGE(result.stats.log.find("Compiling entry function 'relu_kernel' for '" + options.arch + "'")
                              != std::string::npos,
                          result.stats.log);
            REQUIRE(result.cubin.size() > 4);
            CHECK(result.cubin.substr(0, 4)
                  == std::string("\x7f"
                                 "ELF"));
            CHECK(result.ptx.find(".target " + options.arch) != std::string::npos);
            CHECK(result.ptx.find(".entry relu_kernel(") != std::string::npos);
            REQUIRE(result.kernels.size() == size_t(1));
            CHECK(result.kernels[0].name == std::string("relu_kernel"));
            CHECK(result.kernels[0].params.size() == size_t(3));
        }
    }
}

TEST_CASE("leaves out PTX when not wanted" * needsNvrtc())
{
    CompileOptions options;
    options.wantPtx = false;
    const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
    REQUIRE_MESSAGE(result.ok, result.stats.log);
    CHECK(result.ptx.empty());
    CHECK(!result.cubin.empty());
}

TEST_CASE("reports syntax errors with their line" * needsNvrtc())
{
    const CompileResult result = NvrtcCompiler().compile("extern \"C\" __global__ void k(float* y)\n"
                                                         "{\n"
                                                         "    const int i = threadIdx.x;\n"
                                                         "    y[i] = 1.0f +;\n"
                                                         "}\n");
    CHECK(!result.ok);
    CHECK(result.cubin.empty());
    CHECK_MESSAGE(result.stats.log.find("candidate.cu(4): error") != std::string::npos, result.stats.log);
    CHECK_MESSAGE(result.error.find("candidate.cu(4): error") != std::string::npos, result.error);
}

TEST_CASE("reports the local memory of a large local array" * needsNvrtc())
{
    // Indexing with a loaded value keeps the array out of registers: 1024 floats of stack.
    const CompileResult result = NvrtcCompiler().compile("extern \"C\" __global__ void k(const int* index, float* y)\n"
                                                         "{\n"
                                                         "    float local[1024];\n"
                                                         "    for (int i = 0; i < 1024; ++i)\n"
                                                         "        local[i] = y[i * blockDim.x + threadIdx.x];\n"
                                                         "    y[threadIdx.x] = local[index[threadIdx.x]];\n"
                                                         "}\n");
    REQUIRE_MESSAGE(result.ok, result.stats.log);
    CHECK(result.stats.spillBytes >= 4096);
    CHECK(result.stats.log.find("bytes stack frame") != std::string::npos);
}

TEST_CASE("reports static shared memory" * needsNvrtc())
{
    const CompileResult result = NvrtcCompiler().compile("extern \"C\" __global__ void k(float* y)\n"
                                                         "{\n"
                                                         "    __shared__ float tile[256];\n"
                                                         "    tile[threadIdx.x] = y[threadIdx.x];\n"
                                                         "    __syncthreads();\n"
                                                         "    y[threadIdx.x] = tile[255 - threadIdx.x];\n"
                                                         "}\n");
    REQUIRE_MESSAGE(result.ok, result.stats.log);
    CHECK(result.stats.staticSharedBytes == 256 * 4);
}

TEST_CASE("rejects host code before compiling" * needsNvrtc())
{
    const CompileResult result = NvrtcCompiler().compile(std::string(kReluSource) + "int main() { return 0; }\n");
    CHECK(!result.ok);
    CHECK(result.cubin.empty());
    CHECK_MESSAGE(result.error.find("host function main not allowed") != std::string::npos, result.error);
    CHECK(result.stats.compileMs == 0.0);
}

TEST_CASE("passes fast math" * needsNvrtc())
{
    const char *divide = "extern \"C\" __global__ void k(const float* a, const float* b, float* y)\n"
                         "{ y[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x]; }\n";
    const CompileResult precise = NvrtcCompiler().compile(divide);
    CompileOptions fast;
    fast.fastMath = true;
    const CompileResult approximate = NvrtcCompiler().compile(divide, fast);
    REQUIRE((precise.ok && approximate.ok));
    CHECK(precise.ptx.find("div.rn.f32") != std::string::npos);
    CHECK(approximate.ptx.find("div.rn.f32") == std::string::npos);
    CHECK(approximate.ptx.find("div.approx") != std::string::npos);
}

TEST_CASE("finds the half-precision headers" * needsNvrtc())
{
    const CompileResult result =
        NvrtcCompiler().compile("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
                                "extern \"C\" __global__ void k(const __half* x, __nv_bfloat16* y)\n"
                                "{ y[threadIdx.x] = __float2bfloat16(__half2float(x[threadIdx.x])); }\n");
    CHECK_MESSAGE(result.ok, result.stats.log);
}

TEST_CASE("rejects bad options" * needsNvrtc())
{
    const struct
    {
        const char *name;
        const char *arch;
        std::vector<std::string> extra;
        const char *expected;
    } rows[] = {
        {"virtual architecture", "compute_90", {}, "unsupported architecture 'compute_90'"},
        {"not an architecture", "hopper", {}, "unsupported architecture 'hopper'"},
        {"architecture NVRTC does not know", "sm_20", {}, "gpu-architecture"},
        {"-O3", "sm_90", std::vector<std::string>{"-O3"}, "-O3"},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            CompileOptions options;
            options.arch = row.arch;
            options.extraOptions.insert(options.extraOptions.end(), row.extra.begin(), row.extra.end());
            const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
            CHECK(!result.ok);
            CHECK_MESSAGE(result.error.find(row.expected) != std::string::npos, result.error);
        }
    }
}

TEST_CASE("compiles on several threads at once" * needsNvrtc())
{
    std::vector<CompileResult> results(4);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < results.size(); ++i)
        threads.emplace_back([&results, i] { results[i] = NvrtcCompiler().compile(kReluSource); });
    for (std::thread &thread : threads)
        thread.join();
    for (const CompileResult &result : results) {
        REQUIRE_MESSAGE(result.ok, result.stats.log);
        CHECK(result.stats.registers == results[0].stats.registers);
        CHECK(result.cubin == results[0].cubin);
    }
}

TEST_CASE("reports the version" * needsNvrtc())
{
    const std::string version = NvrtcCompiler::version();
    CHECK_MESSAGE(std::regex_search(version, std::regex("^[0-9]+\\.[0-9]+$")), version);
}
