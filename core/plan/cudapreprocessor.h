#pragma once

#include "core/plan/cudatokenizer.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

struct CudaPreprocessOptions
{
    std::string arch = "sm_90"; // __CUDA_ARCH__ and the feature macros of "a" and "f" architectures.
    std::string cudaVersion;    // NVRTC's, e.g. "13.0": __CUDACC_VER_MAJOR__ ...; empty: not defined.
    bool fastMath = false;      // __USE_FAST_MATH__
};

/**
 * The tokens NVRTC compiles, found the way its preprocessor finds them: #if groups decided (defined, integer
 * arithmetic, the macros NVRTC predefines for the architecture), #define and #undef applied where they stand,
 * macros replaced (#, ##, __VA_ARGS__, __VA_OPT__), digraphs read as their tokens, _Pragma(...), #include,
 * #pragma and #line dropped. The CUDA keyword macros (__device__ ...) stay as written. Punctuators other than
 * "::" come out as single characters, so ">>" closes two template argument lists.
 * Linear in the size of the source: macro replacement may produce at most about a million tokens more than the
 * source has; past that, or past a nesting limit, an Error "line N: ..." says what was too much.
 */
Expected<std::vector<CudaToken>> preprocessCuda(const std::string &source, const CudaPreprocessOptions &options = {});

} // namespace kx
