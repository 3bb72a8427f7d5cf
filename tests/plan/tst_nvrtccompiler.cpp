// NVRTC compilation with the real compiler, the device-only check and ptxas report parsing.
#include "core/plan/devicecodecheck.h"
#include "core/plan/nvrtccompiler.h"
#include "core/plan/ptxasreport.h"

#include <QtTest>

#include <thread>

using namespace kx;

namespace {

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

#define REQUIRE_NVRTC()                                                                                                \
    if (!NvrtcCompiler::available())                                                                                   \
        QSKIP("this build has no NVRTC (no CUDA toolkit was found when it was configured)");

} // namespace

class TestNvrtcCompiler : public QObject
{
    Q_OBJECT

private slots:
    void readsThePtxasReport()
    {
        const std::vector<PtxasFunction> functions = parsePtxasReport(kPtxasLog);
        QCOMPARE(functions.size(), size_t(3));

        QCOMPARE(functions[0].name, std::string("k2"));
        QVERIFY(functions[0].entry);
        QCOMPARE(functions[0].registers, 26);
        QCOMPARE(functions[0].stackFrameBytes, 256);
        QCOMPARE(functions[0].cumulativeStackBytes, 256);
        QCOMPARE(functions[0].spillStoreBytes, 8);
        QCOMPARE(functions[0].spillLoadBytes, 8);
        QCOMPARE(functions[0].sharedBytes, 0);

        QCOMPARE(functions[1].name, std::string("_Z6helperf"));
        QVERIFY(!functions[1].entry);
        QCOMPARE(functions[1].stackFrameBytes, 64);
        QCOMPARE(functions[1].registers, 0);

        QCOMPARE(functions[2].name, std::string("k"));
        QVERIFY(functions[2].entry);
        QCOMPARE(functions[2].registers, 40);
        QCOMPARE(functions[2].stackFrameBytes, 1200);
        QCOMPARE(functions[2].sharedBytes, 1024);

        CompileStats stats;
        applyPtxasReport(functions, stats);
        QCOMPARE(stats.registers, 40);
        QCOMPARE(stats.spillBytes, 1200);
        QCOMPARE(stats.staticSharedBytes, 1024);
    }

    void readsAnEmptyReport()
    {
        QVERIFY(parsePtxasReport("candidate.cu(3): error: expected a \";\"\n").empty());
        CompileStats stats;
        applyPtxasReport({}, stats);
        QCOMPARE(stats.registers, 0);
    }

    void acceptsDeviceOnlyCode_data()
    {
        QTest::addColumn<QString>("source");
        QTest::newRow("kernel and device function")
            << "__device__ float twice(float x) { return 2 * x; }\n"
               "extern \"C\" __global__ void k(float* y) { y[0] = twice(y[0]); }\n";
        QTest::newRow("qualifier order and inline")
            << "static __device__ __forceinline__ float f(float x) { return x; }\n"
               "__forceinline__ __device__ float g(float x) { return x; }\n"
               "__host__ __device__ inline int h(int v) { return v; }\n";
        QTest::newRow("templates") << "template <typename T, int N> __device__ T sum(const T (&v)[N]) { T s{}; "
                                      "for (int i = 0; i < N; ++i) s += v[i]; return s; }\n"
                                      "template <int B> __global__ void k(float* y) { y[B] = 0; }\n"
                                      "template __global__ void k<128>(float*);\n";
        QTest::newRow("types with members")
            << "struct Acc { float v; float get() const { return v; } Acc operator+(Acc o) const { return {v + o.v}; } };\n"
               "enum class Mode : int { A, B };\nunion Bits { float f; unsigned u; };\n"
               "typedef float real;\nusing index_t = int;\nstatic_assert(sizeof(float) == 4, \"float\");\n";
        QTest::newRow("device memory and constants")
            << "__constant__ float table[4] = {1, 2, 3, 4};\n__device__ int counter;\n"
               "extern __shared__ float dynamicShared[];\nconstexpr int kBlock = 256;\n"
               "static const float kScale = 0.5f;\n";
        QTest::newRow("macros for qualifiers") << "#define DEVICE_INLINE __device__ __forceinline__\n"
                                                  "#define KERNEL extern \"C\" __global__\n"
                                                  "DEVICE_INLINE float f(float x) { return x; }\n"
                                                  "KERNEL void k(float* y) { y[0] = f(y[0]); }\n";
        QTest::newRow("namespaces and extern C block")
            << "namespace { __device__ float f(float x) { return x; } }\nnamespace detail { __device__ int g(); }\n"
               "extern \"C\" { __global__ void k(float* y) {} }\n";
        QTest::newRow("host code only in comments and #if 0")
            << "// int main() { return 0; }\n/* float helper(float x) { return x; } */\n"
               "#if 0\nint main() { return 0; }\n#endif\n__device__ int f() { return 1; }\n";
        QTest::newRow("device operator") << "__device__ float2 operator+(float2 a, float2 b) { return {a.x + b.x, a.y + b.y}; }\n";
        QTest::newRow("launch bounds") << "extern \"C\" __global__ void __launch_bounds__(256, 2) k(float* y) {}\n";
    }

    void acceptsDeviceOnlyCode()
    {
        QFETCH(QString, source);
        const Status status = checkDeviceOnly(source.toStdString());
        QVERIFY2(status, status ? "" : status.error().message.c_str());
    }

    void rejectsHostCode_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("expected");
        QTest::newRow("main") << "int main() { return 0; }\n" << "line 1: host function main not allowed";
        QTest::newRow("main after a kernel") << QString(kReluSource) + "\nint main()\n{\n    return 0;\n}\n"
                                             << "line 9: host function main not allowed";
        QTest::newRow("unmarked helper") << "float twice(float x) { return 2 * x; }\n"
                                         << "line 1: host function twice not allowed";
        QTest::newRow("host only") << "__host__ void setup() {}\n" << "line 1: host function setup not allowed";
        QTest::newRow("helper in a namespace") << "namespace detail {\nint helper() { return 1; }\n}\n"
                                               << "line 2: host function helper not allowed";
        QTest::newRow("member defined outside its type")
            << "struct Acc { float v; float get() const; };\nfloat Acc::get() const { return v; }\n"
            << "line 2: host function Acc::get not allowed";
        QTest::newRow("host operator") << "float2 operator-(float2 a, float2 b) { return a; }\n"
                                       << "line 1: host function operator- not allowed";
        QTest::newRow("host variable") << "int counter = 0;\n" << "line 1: host variable counter not allowed";
        QTest::newRow("managed variable") << "__managed__ int shared_state;\n"
                                          << "line 1: managed variable shared_state not allowed";
        QTest::newRow("every offence listed") << "int a;\nint main() { return a; }\n"
                                              << "line 1: host variable a not allowed (use __device__ or __constant__)\n"
                                                 "line 2: host function main not allowed";
    }

    void rejectsHostCode()
    {
        QFETCH(QString, source);
        QFETCH(QString, expected);
        const Status status = checkDeviceOnly(source.toStdString());
        QVERIFY(!status);
        const QString message = QString::fromStdString(status.error().message);
        QVERIFY2(message.startsWith(expected), qPrintable("got: " + message));
    }

    void reportsMissingNvrtc()
    {
        if (NvrtcCompiler::available())
            QSKIP("this build has NVRTC");
        const CompileResult result = NvrtcCompiler().compile(kReluSource);
        QVERIFY(!result.ok);
        QVERIFY(result.error.find("no NVRTC") != std::string::npos);
        QCOMPARE(result.kernels.size(), size_t(1));
    }

    void compilesForEachArchitecture_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::newRow("sm_80") << "sm_80";
        QTest::newRow("sm_90") << "sm_90";
    }

    void compilesForEachArchitecture()
    {
        REQUIRE_NVRTC();
        QFETCH(QString, arch);
        CompileOptions options;
        options.arch = arch.toStdString();
        const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
        QVERIFY2(result.ok, result.stats.log.c_str());
        QVERIFY(result.error.empty());
        QVERIFY(result.stats.registers > 0);
        QVERIFY(result.stats.compileMs > 0);
        QVERIFY2(result.stats.log.find("Compiling entry function 'relu_kernel' for '" + options.arch + "'")
                     != std::string::npos,
                 result.stats.log.c_str());
        QVERIFY(result.cubin.size() > 4);
        QCOMPARE(result.cubin.substr(0, 4), std::string("\x7f" "ELF"));
        QVERIFY(result.ptx.find(".target " + options.arch) != std::string::npos);
        QVERIFY(result.ptx.find(".entry relu_kernel(") != std::string::npos);
        QCOMPARE(result.kernels.size(), size_t(1));
        QCOMPARE(result.kernels[0].name, std::string("relu_kernel"));
        QCOMPARE(result.kernels[0].params.size(), size_t(3));
    }

    void leavesOutPtxWhenNotWanted()
    {
        REQUIRE_NVRTC();
        CompileOptions options;
        options.wantPtx = false;
        const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
        QVERIFY2(result.ok, result.stats.log.c_str());
        QVERIFY(result.ptx.empty());
        QVERIFY(!result.cubin.empty());
    }

    void reportsSyntaxErrorsWithTheirLine()
    {
        REQUIRE_NVRTC();
        const CompileResult result = NvrtcCompiler().compile("extern \"C\" __global__ void k(float* y)\n"
                                                             "{\n"
                                                             "    const int i = threadIdx.x;\n"
                                                             "    y[i] = 1.0f +;\n"
                                                             "}\n");
        QVERIFY(!result.ok);
        QVERIFY(result.cubin.empty());
        QVERIFY2(result.stats.log.find("candidate.cu(4): error") != std::string::npos, result.stats.log.c_str());
        QVERIFY2(result.error.find("candidate.cu(4): error") != std::string::npos, result.error.c_str());
    }

    void reportsLocalMemoryOfALargeLocalArray()
    {
        REQUIRE_NVRTC();
        // Indexing with a loaded value keeps the array out of registers: 1024 floats of stack.
        const CompileResult result = NvrtcCompiler().compile(
            "extern \"C\" __global__ void k(const int* index, float* y)\n"
            "{\n"
            "    float local[1024];\n"
            "    for (int i = 0; i < 1024; ++i)\n"
            "        local[i] = y[i * blockDim.x + threadIdx.x];\n"
            "    y[threadIdx.x] = local[index[threadIdx.x]];\n"
            "}\n");
        QVERIFY2(result.ok, result.stats.log.c_str());
        QVERIFY2(result.stats.spillBytes >= 4096, qPrintable(QString::number(result.stats.spillBytes)));
        QVERIFY(result.stats.log.find("bytes stack frame") != std::string::npos);
    }

    void reportsStaticSharedMemory()
    {
        REQUIRE_NVRTC();
        const CompileResult result = NvrtcCompiler().compile(
            "extern \"C\" __global__ void k(float* y)\n"
            "{\n"
            "    __shared__ float tile[256];\n"
            "    tile[threadIdx.x] = y[threadIdx.x];\n"
            "    __syncthreads();\n"
            "    y[threadIdx.x] = tile[255 - threadIdx.x];\n"
            "}\n");
        QVERIFY2(result.ok, result.stats.log.c_str());
        QCOMPARE(result.stats.staticSharedBytes, 256 * 4);
    }

    void rejectsHostCodeBeforeCompiling()
    {
        REQUIRE_NVRTC();
        const CompileResult result = NvrtcCompiler().compile(std::string(kReluSource) + "int main() { return 0; }\n");
        QVERIFY(!result.ok);
        QVERIFY(result.cubin.empty());
        QVERIFY2(result.error.find("host function main not allowed") != std::string::npos, result.error.c_str());
        QCOMPARE(result.stats.compileMs, 0.0);
    }

    void passesFastMath()
    {
        REQUIRE_NVRTC();
        const char *divide = "extern \"C\" __global__ void k(const float* a, const float* b, float* y)\n"
                             "{ y[threadIdx.x] = a[threadIdx.x] / b[threadIdx.x]; }\n";
        const CompileResult precise = NvrtcCompiler().compile(divide);
        CompileOptions fast;
        fast.fastMath = true;
        const CompileResult approximate = NvrtcCompiler().compile(divide, fast);
        QVERIFY(precise.ok && approximate.ok);
        QVERIFY(precise.ptx.find("div.rn.f32") != std::string::npos);
        QVERIFY(approximate.ptx.find("div.rn.f32") == std::string::npos);
        QVERIFY(approximate.ptx.find("div.approx") != std::string::npos);
    }

    void findsTheHalfPrecisionHeaders()
    {
        REQUIRE_NVRTC();
        const CompileResult result = NvrtcCompiler().compile(
            "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n"
            "extern \"C\" __global__ void k(const __half* x, __nv_bfloat16* y)\n"
            "{ y[threadIdx.x] = __float2bfloat16(__half2float(x[threadIdx.x])); }\n");
        QVERIFY2(result.ok, result.stats.log.c_str());
    }

    void rejectsBadOptions_data()
    {
        QTest::addColumn<QString>("arch");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<QString>("expected");
        QTest::newRow("virtual architecture") << "compute_90" << QStringList() << "unsupported architecture 'compute_90'";
        QTest::newRow("not an architecture") << "hopper" << QStringList() << "unsupported architecture 'hopper'";
        QTest::newRow("architecture NVRTC does not know") << "sm_20" << QStringList() << "gpu-architecture";
        QTest::newRow("-O3") << "sm_90" << QStringList{"-O3"} << "-O3";
    }

    void rejectsBadOptions()
    {
        REQUIRE_NVRTC();
        QFETCH(QString, arch);
        QFETCH(QStringList, extra);
        QFETCH(QString, expected);
        CompileOptions options;
        options.arch = arch.toStdString();
        for (const QString &option : extra)
            options.extraOptions.push_back(option.toStdString());
        const CompileResult result = NvrtcCompiler().compile(kReluSource, options);
        QVERIFY(!result.ok);
        QVERIFY2(result.error.find(expected.toStdString()) != std::string::npos, result.error.c_str());
    }

    void compilesOnSeveralThreadsAtOnce()
    {
        REQUIRE_NVRTC();
        std::vector<CompileResult> results(4);
        std::vector<std::thread> threads;
        for (std::size_t i = 0; i < results.size(); ++i)
            threads.emplace_back([&results, i] { results[i] = NvrtcCompiler().compile(kReluSource); });
        for (std::thread &thread : threads)
            thread.join();
        for (const CompileResult &result : results) {
            QVERIFY2(result.ok, result.stats.log.c_str());
            QCOMPARE(result.stats.registers, results[0].stats.registers);
            QCOMPARE(result.cubin, results[0].cubin);
        }
    }

    void reportsTheVersion()
    {
        REQUIRE_NVRTC();
        const QString version = QString::fromStdString(NvrtcCompiler::version());
        QVERIFY2(QRegularExpression("^[0-9]+\\.[0-9]+$").match(version).hasMatch(), qPrintable(version));
    }
};

QTEST_MAIN(TestNvrtcCompiler)
#include "tst_nvrtccompiler.moc"
