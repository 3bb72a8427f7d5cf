#pragma once

#include "core/eval/evalrequest.h"

#include <iosfwd>

namespace kx {

/// Why runWorker() returned.
enum class WorkerExit {
    Shutdown,   ///< The host sent Shutdown.
    EndOfInput, ///< The host closed our stdin (or stdout broke): it is gone.
    MustExit,   ///< A result said the CUDA context is unusable.
    NoGpu,      ///< The hello reported that there is no usable GPU.
};

/**
 * The worker side of the protocol (core/eval/protocol.h): sends a hello describing @p evaluator's GPU, then
 * reads host messages line by line and answers each, until Shutdown, end of input, or a result with
 * workerMustExit. A line it cannot read is answered with an Error message and skipped. Writes protocol lines
 * only to @p out (flushed after each line); logs go to stderr.
 *
 * The hello reports no usable GPU when describe() throws or returns an empty GPU name; the reason is the
 * exception's text or the message of evaluate() on an empty request (the GPU evaluator's way to say why).
 */
WorkerExit runWorker(std::istream &in, std::ostream &out, Evaluator &evaluator, int device = 0);

} // namespace kx
