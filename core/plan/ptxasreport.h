#pragma once

#include "core/domain/evaluation.h"

#include <string>
#include <vector>

namespace kx {

/// Resource use of one function as ptxas reports it with -v.
struct PtxasFunction
{
    std::string name;   ///< As in the binary (device functions are mangled).
    bool entry = false; ///< A kernel ("Compiling entry function ...").
    int registers = 0;
    int stackFrameBytes = 0;
    int cumulativeStackBytes = 0; ///< Stack of the kernel and everything it calls (newer ptxas).
    int spillStoreBytes = 0;
    int spillLoadBytes = 0;
    int sharedBytes = 0; ///< Static shared memory ("smem").
};

/// Reads ptxas' verbose report from a compile log; lines of other kinds are ignored.
std::vector<PtxasFunction> parsePtxasReport(const std::string &log);

/**
 * Fills registers, spillBytes and staticSharedBytes of stats with the largest value over the report's
 * functions. spillBytes is local memory per thread: the stack frame, which holds local arrays and spill
 * slots (the cumulative stack of a kernel and its callees where ptxas reports it).
 */
void applyPtxasReport(const std::vector<PtxasFunction> &functions, CompileStats &stats);

} // namespace kx
