#pragma once

#include "core/domain/baseline.h"
#include "core/eval/evalrequest.h"

#include <string>

namespace kx {

/**
 * Runs the child that times the Inductor baseline on a GPU: settings.command with "--device" N, the request
 * (JSON) on its stdin, a BaselineMeasurement (JSON) as its last stdout line, or {"ok": false, "error": ...}.
 * The child runs in a process of its own, so a package that crashes takes only the child down. A crash, a hang
 * past timeoutMs or unreadable output comes back as a measurement with an error that says so: never a failure.
 * The result's kind is Inductor and its method settings.method; gpu, uid and run are the caller's to fill in.
 */
BaselineMeasurement runBaselineChild(const InductorBaselineSettings &settings, const std::string &requestJson,
                                     int device, double timeoutMs);

} // namespace kx
