#pragma once

// What an imported op costs at least, for the roofline floor: FLOPs of its graph and bytes of its tensors.
#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"

#include <string>

namespace kx {

/// Minimal FLOPs of the graph as an expression over the op's shape symbols; "0" when a call's cost is unknown.
std::string graphFlopsExpression(const OpGraph &graph, const Op &op);

/// Minimal DRAM bytes (every input read once, every output written once) over the op's shape symbols.
std::string bytesMovedExpression(const Op &op);

} // namespace kx
