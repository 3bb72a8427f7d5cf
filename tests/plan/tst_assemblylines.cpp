// The source line of each PTX and SASS line, from NVRTC's line information: fixtures in the formats NVRTC and
// nvdisasm -g write, and a real NVRTC compile.
#include "core/plan/assemblylines.h"
#include "core/plan/nvrtccompiler.h"

#include <doctest/doctest.h>

#include <sstream>
#include <string>

using namespace kx;

namespace {

// 1-based assembly line of the first line containing `part`.
int lineOf(const std::string &text, const std::string &part)
{
    std::istringstream in(text);
    std::string line;
    for (int number = 1; std::getline(in, line); ++number)
        if (line.find(part) != std::string::npos)
            return number;
    return 0;
}

} // namespace

TEST_CASE("PTX lines follow the .loc directives of the candidate's own file")
{
    const std::string ptx = R"(//
.version 8.5
.target sm_90
.file 1 "candidate.cu"
.file 2 "/usr/include/cuda_fp16.hpp"

.visible .entry relu(
	.param .u64 relu_param_0
)
{
	.reg .f32 	%f<3>;
	.loc	1 5 5
	ld.param.u64 	%rd1, [relu_param_0];
	mov.u32 	%r1, %tid.x;
	.loc	2 90 1
	max.f32 	%f2, %f1, 0f00000000;
	.loc	1 7 9
	st.global.f32 	[%rd4], %f2;
$L__BB0_2:
	ret;
}
)";
    const auto map = mapPtxLines(ptx);
    REQUIRE(map.sourceLine.size() == std::size_t(lineOf(ptx, "ret;") + 1));
    CHECK(map.sourceLineOf(lineOf(ptx, "ld.param") - 1) == 5);
    CHECK(map.sourceLineOf(lineOf(ptx, "mov.u32") - 1) == 5);
    CHECK(map.sourceLineOf(lineOf(ptx, "max.f32") - 1) == 0); // code from a header
    CHECK(map.sourceLineOf(lineOf(ptx, "st.global") - 1) == 7);
    CHECK(map.sourceLineOf(lineOf(ptx, "$L__BB0_2") - 1) == 0); // a label
    CHECK(map.sourceLineOf(lineOf(ptx, ".reg") - 1) == 0);      // a declaration
    CHECK(map.sourceLineOf(lineOf(ptx, ".target") - 1) == 0);
    CHECK(map.assemblyLinesOf(5) == std::vector<int>{lineOf(ptx, "ld.param") - 1, lineOf(ptx, "mov.u32") - 1});
    CHECK(map.assemblyLinesOf(99).empty());
    CHECK_FALSE(map.empty());
    CHECK(mapPtxLines(".version 8.5\n.target sm_90\n").empty()); // no line information at all
}

TEST_CASE("SASS lines follow nvdisasm's //## File comments")
{
    const std::string sass = R"(	.section	.text.relu,"ax",@progbits
        .text.relu:
        //## File "candidate.cu", line 5
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/                   S2R R0, SR_TID.X ;
        //## File "/usr/local/cuda/include/crt/math_functions.hpp", line 400
        /*0020*/                   FMNMX R5, R2, RZ, !PT ;
        //## File "candidate.cu", line 7
        /*0030*/                   STG.E desc[UR4][R2.64], R5 ;
)";
    const auto map = mapSassLines(sass);
    CHECK(map.sourceLineOf(lineOf(sass, "LDC") - 1) == 5);
    CHECK(map.sourceLineOf(lineOf(sass, "S2R") - 1) == 5);
    CHECK(map.sourceLineOf(lineOf(sass, "FMNMX") - 1) == 0);
    CHECK(map.sourceLineOf(lineOf(sass, "STG.E") - 1) == 7);
    CHECK(map.sourceLineOf(lineOf(sass, "//## File \"candidate.cu\", line 7") - 1) == 0);
    // cuobjdump's SASS has no line information: nothing links.
    CHECK(mapSassLines("        /*0000*/                   LDC R1, c[0x0][0x28] ;\n").empty());
}

TEST_CASE("NVRTC's line information maps a real kernel's PTX to its source lines")
{
    if (!NvrtcCompiler::available())
        return;
    const std::string source = "extern \"C\" __global__ void relu(const float* x, float* y, int n)\n"
                               "{\n"
                               "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                               "    if (i < n)\n"
                               "        y[i] = fmaxf(x[i], 0.0f);\n"
                               "}\n";
    CompileOptions options;
    options.arch = "sm_90";
    options.lineInfo = true;
    const auto compiled = NvrtcCompiler().compile(source, options);
    REQUIRE_MESSAGE(compiled.ok, compiled.error);
    const auto map = mapPtxLines(compiled.ptx);
    REQUIRE_FALSE(map.empty());
    // The store of line 5 and the index arithmetic of line 3 are both there, at the right instructions.
    bool storeOnLine5 = false;
    for (const int line : map.assemblyLinesOf(5)) {
        std::istringstream in(compiled.ptx);
        std::string text;
        for (int i = 0; i <= line; ++i)
            std::getline(in, text);
        storeOnLine5 = storeOnLine5 || text.find("st.global") != std::string::npos;
    }
    CHECK(storeOnLine5);
    CHECK_FALSE(map.assemblyLinesOf(3).empty());
    // Without -lineinfo there is nothing to link.
    options.lineInfo = false;
    CHECK(mapPtxLines(NvrtcCompiler().compile(source, options).ptx).empty());
}
