// The signatures of a source's extern "C" kernels, as launch plans are resolved against them: parameter names,
// types and kinds, whatever the qualifiers, line breaks, macros, comments or declarations around them.
#include "core/plan/launchplan.h"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using namespace kx;

namespace {

const char *kindCode(KernelParam::Kind kind)
{
    switch (kind) {
    case KernelParam::Kind::Pointer: return "ptr";
    case KernelParam::Kind::ConstPointer: return "cptr";
    case KernelParam::Kind::Int: return "int";
    case KernelParam::Kind::Float: return "float";
    case KernelParam::Kind::TensorMap: return "tmap";
    case KernelParam::Kind::Other: return "other";
    }
    return "?";
}

// "name(type name:kind, ...); ..." for compact expectations.
std::string describe(const std::vector<KernelSignature> &kernels)
{
    std::string described;
    for (const KernelSignature &kernel : kernels) {
        std::string params;
        for (const KernelParam &param : kernel.params) {
            params += params.empty() ? "" : ", ";
            params += param.type + (param.name.empty() ? "" : " " + param.name) + ":" + kindCode(param.kind);
        }
        described += (described.empty() ? "" : "; ") + kernel.name + "(" + params + ")";
    }
    return described;
}

} // namespace

TEST_CASE("parses the signatures of extern \"C\" kernels")
{
    const struct
    {
        const char *name;
        std::string source;
        const char *expected;
    } rows[] = {
        {"one line", R"(extern "C" __global__ void relu(const float* x, float* y, int n) { })",
         "relu(const float* x:cptr, float* y:ptr, int n:int)"},
        {"launch bounds and line breaks",
         "extern \"C\"\n__global__ void\n__launch_bounds__(256, 2)\nrelu_kernel(const float* __restrict__ x,\n"
         "            float* __restrict__ out,\n            int n)\n{\n}\n",
         "relu_kernel(const float* __restrict__ x:cptr, float* __restrict__ out:ptr, int n:int)"},
        {"launch bounds before void", R"(extern "C" __global__ __launch_bounds__(128) void k(float* y) {})",
         "k(float* y:ptr)"},
        {"extern C block", "extern \"C\" {\n__global__ void a(float* y) {}\n__global__ void b(void) {}\n}\n",
         "a(float* y:ptr); b()"},
        {"integer types",
         R"(extern "C" __global__ void k(long a, unsigned b, unsigned int c, long long d, size_t e,
         int64_t f, uint32_t g, short h, const int i, std::int64_t j) {})",
         "k(long a:int, unsigned b:int, unsigned int c:int, long long d:int, size_t e:int, int64_t f:int, "
         "uint32_t g:int, short h:int, const int i:int, std::int64_t j:int)"},
        {"float types", R"(extern "C" __global__ void k(float a, double b, const float c) {})",
         "k(float a:float, double b:float, const float c:float)"},
        {"other types", R"(extern "C" __global__ void k(float4 v, __half h, bool flag, float &r) {})",
         "k(float4 v:other, __half h:other, bool flag:other, float & r:other)"},
        {"pointer constness",
         R"(extern "C" __global__ void k(float* const a, const float* const b, float const* c, )"
         R"(const int* __restrict__ d) {})",
         "k(float* const a:ptr, const float* const b:cptr, float const* c:cptr, const int* __restrict__ d:cptr)"},
        {"arrays decay to pointers", R"(extern "C" __global__ void k(float y[], const float x[4]) {})",
         "k(float[] y:ptr, const float[] x:cptr)"},
        {"unnamed parameters", R"(extern "C" __global__ void k(int, float*) {})", "k(int:int, float*:ptr)"},
        {"default argument", R"(extern "C" __global__ void k(int n = 5) {})", "k(int n:int)"},
        {"macro for extern C", "#define KERNEL extern \"C\" __global__\nKERNEL void k(float* y) {}\n",
         "k(float* y:ptr)"},
        {"C++ linkage is not listed",
         "__global__ void mangled(float* y) {}\nextern \"C\" __global__ void plain(float* y) {}\n",
         "plain(float* y:ptr)"},
        {"device functions are not listed",
         "extern \"C\" __device__ float twice(float x) { return 2 * x; }\n"
         "extern \"C\" __global__ void k(float* y) { y[0] = twice(y[0]); }\n",
         "k(float* y:ptr)"},
        {"comments and #if 0 are skipped",
         "// extern \"C\" __global__ void line(int a) {}\n/* extern \"C\" __global__ void block(int a) {} */\n"
         "#if 0\nextern \"C\" __global__ void disabled(int a) {}\n#endif\n"
         "extern \"C\" __global__ void k(/* input */ const float* x) {}\n",
         "k(const float* x:cptr)"},
        {"declaration then definition",
         "extern \"C\" __global__ void k(float* y);\nextern \"C\" __global__ void k(float* y) {}\n", "k(float* y:ptr)"},
        {"after templates and types",
         "template<typename T> __device__ T add(T a, T b) { return a + b; }\n"
         "struct Pair { float a, b; __device__ float sum() const { return a + b; } };\n"
         "namespace detail { __device__ int twice(int v) { return 2 * v; } }\n"
         "extern \"C\" __global__ void k(Pair* p, int n) {}\n",
         "k(Pair* p:ptr, int n:int)"},
        {"tensor maps by value, not by pointer",
         R"(extern "C" __global__ void k(const __grid_constant__ CUtensorMap a, const struct CUtensorMap_st b, )"
         R"(const CUtensorMap* c, CUtensorMapLike d) {})",
         "k(const __grid_constant__ CUtensorMap a:tmap, const struct CUtensorMap_st b:tmap, const CUtensorMap* c:cptr, "
         "CUtensorMapLike d:other)"},
        {"no kernels", "__device__ float f(float x) { return x; }\n", ""},
    };
    for (const auto &row : rows) {
        SUBCASE(row.name)
        {
            CHECK(describe(parseKernelSignatures(row.source)) == row.expected);
        }
    }
}
