#pragma once

#include "core/plan/nvrtcjob.h"

#include <stop_token>
#include <string>

namespace kx {

/// How a job in the NVRTC child ended.
struct NvrtcRun
{
    enum class Outcome { Done, TimeLimit, MemoryLimit, Cancelled, Failed };
    Outcome outcome = Outcome::Failed;
    NvrtcOutput output;     ///< Done: what NVRTC said.
    std::string error;      ///< Otherwise: what happened, for a message.
    std::size_t peakMb = 0; ///< The most memory the child was seen to use.
};

/**
 * Runs an NVRTC job in a kx-nvrtc child process, so that no compile can take kx down or hold it: the child is
 * killed when the job passes job.timeoutSeconds of wall time or job.memoryLimitMb of resident memory, or when
 * stop is requested. The child runs in its own process group (Ctrl-C reaches kx only, which decides), without
 * secrets in its environment; an idle child is kept for the next job, since NVRTC's first compile in a process
 * costs more than the later ones. Thread-safe: concurrent jobs get children of their own.
 */
NvrtcRun runNvrtcJob(const NvrtcJob &job, std::stop_token stop);

/// The kx-nvrtc program: $KX_NVRTC_HELPER, else kx-nvrtc next to this program.
std::string nvrtcHelperPath();

} // namespace kx
