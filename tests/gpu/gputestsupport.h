#pragma once

#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/gpu/gpuevaluator.h"

#include <string>

namespace kx::test {

/// The process's GPU evaluator (device 0), made on first use.
GpuEvaluator &gpuEvaluator();

/// Prints "no GPU: skipped (reason)" and exits 77 when the evaluator cannot use a GPU. Returns true otherwise.
bool skipWithoutGpu();

/// "sm_90" for the evaluator's GPU.
std::string gpuArch();

/// Quick but complete settings: every trial and check, fewer timed runs.
EvalSettings quickSettings();

/// Compiles source for gpuArch() with NVRTC and builds a request; fails the current test on a compile error.
EvaluateRequest makeRequest(const Op &op, const std::string &source, const std::string &plan,
                            const EvalSettings &settings = quickSettings());

/// Compiles a whole candidate (source and plan) and evaluates it on the shared GPU evaluator.
EvaluateOutcome evaluateCandidate(const Op &op, const Candidate &candidate);

/// A plan of one 1-D kernel over N elements (256 threads a block) with the given args JSON.
std::string elementwisePlan(const std::string &kernel, const std::string &argsJson,
                            const std::string &scratchJson = "[]", const std::string &sharedBytes = "0");

/// The status as text: doctest prints it when a check fails (kx::toString would confuse doctest's own).
std::string statusText(EvalStatus status);

/// The built-in op of this name; fails the current test when there is none.
const Op &builtIn(const std::string &name);

/// Fails the current test, with the evaluation's message, unless the outcome is correct with the worker alive.
void requireCorrect(const EvaluateOutcome &outcome);

} // namespace kx::test
