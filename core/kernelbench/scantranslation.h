#pragma once

#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

namespace kx {

/**
 * Turns a graph around one cumulative sum or product (aten::cumsum, aten::cumprod) into a scan recipe:
 * elementwise calls before it become the prologue (x * mask), elementwise calls after it the epilogue; flip, scan,
 * flip is a reverse scan; the scan of the first n - 1 elements (narrow or slice, before or after the scan) behind a
 * zero slice (cat of zeros_like and the scan) is an exclusive scan. Shape bookkeeping the trace records (aten::size
 * and the integer arithmetic of a narrow's length) and calls whose values nothing reads are left out.
 */
class ScanTranslator
{
public:
    /// Whether the graph scans and calls nothing but what may surround a scan: then translate() decides, and no
    /// other translation applies.
    static bool appliesTo(const OpGraph &graph);
    /// The op with its scan recipe and tolerances, or an Error that says what does not fit.
    static Expected<Op> translate(const OpGraph &graph, Op op);
};

} // namespace kx
