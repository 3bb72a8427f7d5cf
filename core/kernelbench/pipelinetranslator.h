#pragma once

#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

namespace kx {

/**
 * Translates a traced op graph call by call into a "pipeline" recipe (core/codegen/pipeline.h), for models no
 * single template covers: runs of elementwise calls (and BatchNorm in inference mode) are fused into generated
 * kernels, reductions over contiguous dimensions become generated kernels, and every other call (convolutions,
 * GEMMs, poolings, norms that need statistics ...) runs as a library step through LibTorch. Intermediates get
 * shapes over the op's shape symbols; where the import traced the model at the second shape set too, a
 * dimension that follows no symbol gets a derived one. The op's policy then allows exactly the library calls
 * the pipeline makes. Where every call would be a library step, convolutions and poolings become generated
 * window stages (direct convolution, window pooling); an op with nothing to generate even then is refused.
 */
class PipelineTranslator
{
public:
    static Expected<Op> translate(const OpGraph &graph, Op op);
};

} // namespace kx
