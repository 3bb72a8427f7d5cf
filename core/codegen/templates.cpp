// The registry of code templates, in preference order.
#include "core/codegen/kerneltemplate.h"

#include "core/codegen/attentionfusedtemplate.h"
#include "core/codegen/attentiontemplate.h"
#include "core/codegen/clusternormtemplate.h"
#include "core/codegen/convepiloguetemplate.h"
#include "core/codegen/elementwisetemplate.h"
#include "core/codegen/gemmlibrarytemplate.h"
#include "core/codegen/gemmtemplate.h"
#include "core/codegen/gemmtensorcoretemplate.h"
#include "core/codegen/gemmwgmmatemplate.h"
#include "core/codegen/losstemplate.h"
#include "core/codegen/normalizetemplate.h"
#include "core/codegen/pipelinetemplate.h"
#include "core/codegen/rowtemplates.h"
#include "core/codegen/scantemplate.h"
#include "core/codegen/splitnormtemplate.h"
#include "core/codegen/stridednormtemplate.h"
#include "core/codegen/stridedreducetemplate.h"
#include "core/codegen/transposetemplate.h"

namespace kx {

const std::vector<const KernelTemplate *> &kernelTemplates()
{
    static const ElementwiseTemplate elementwise;
    static const ReduceTemplate reduce;
    static const StridedReduceTemplate stridedReduce;
    static const NormalizeTemplate normalize;
    static const SoftmaxTemplate softmax;
    static const SplitNormTemplate splitNorm;
    static const ClusterNormTemplate clusterNorm;
    static const NormTemplate norm;
    static const StridedNormTemplate stridedNorm;
    static const GemmTemplate gemm;
    static const GemmTensorCoreTemplate gemmTensorCore;
    static const GemmWgmmaTemplate gemmWgmma;
    static const GemmLibraryTemplate gemmLibrary;
    static const TransposeTemplate transpose;
    static const ConvEpilogueTemplate convEpilogue;
    static const ScanTemplate scan;
    static const LossTemplate loss;
    static const AttentionTemplate attention;
    static const AttentionFusedTemplate attentionFused;
    static const PipelineTemplate pipeline;
    // norm-split before norm: it supports only rows too long for one block, which it translates far better.
    // norm-cluster after norm-split: it needs sm_90, so the portable split kernel stays the translation and the
    // first generation tries the cluster kernel beside it (as attention-fused follows attention).
    // gemm first among the templates for gemm recipes: a translation is a generated fp32 FMA kernel; the search
    // may switch to tensor cores, or to the library GEMM with a fused epilogue where the op allows it.
    static const std::vector<const KernelTemplate *> all{&elementwise, &reduce, &stridedReduce, &normalize, &softmax, &splitNorm,
                                                         &clusterNorm, &norm,        &stridedNorm, &gemm,         &gemmTensorCore,
                                                         &gemmWgmma,   &gemmLibrary, &transpose,   &convEpilogue,
                                                         &scan,        &attention,   &attentionFused,   &loss,        &pipeline};
    return all;
}

const KernelTemplate *findKernelTemplate(const std::string &name)
{
    for (const auto *kernelTemplate : kernelTemplates())
        if (kernelTemplate->name() == name)
            return kernelTemplate;
    return nullptr;
}

} // namespace kx
