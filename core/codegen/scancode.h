#pragma once

// The CUDA source of the scan template: the element and output functions, the scan operators (fp32 sums, wide-range
// products) and the kernels (a block per row, decoupled look-back across blocks, a thread per middle-dimension line).
#include <string>
#include <utility>
#include <vector>

namespace kx::scancode {

/// What the generated code computes, from the op and its recipe.
struct ScanSpec
{
    bool product = false;
    bool exclusive = false;
    bool reverse = false;
    std::string prologue; ///< CUDA C over the input names: the element scanned at a position.
    std::string epilogue; ///< CUDA C over `acc` and the input names; empty: acc itself.
    std::vector<std::pair<std::string, std::string>> inputs; ///< Name and element type ("float" or "bool").
    std::string output;
};

/// How the row kernels cut a row into tiles of block x items elements.
struct RowLayout
{
    bool lookBack = false; ///< false: a block scans a row tile by tile; true: a block a tile, chained by look-back.
    int block = 256;
    int items = 8;
};

/// Bytes of dynamic shared memory a row kernel's tile takes (one padding word every 32 elements).
int tileSharedBytes(const RowLayout &layout);

/// The row kernels over [rows, cols]: scan_rows_kernel (a block per row), or scan_init_kernel and
/// scan_tiles_kernel (look-back, sums only).
std::string rowKernels(const ScanSpec &spec, const RowLayout &layout);

/// scan_columns_kernel over [rows, cols, inner]: a thread runs along cols for one (row, inner) pair, in order.
std::string columnKernel(const ScanSpec &spec, int block, int unroll);

} // namespace kx::scancode
