#pragma once

#include <iosfwd>
#include <string>

namespace kx {

/**
 * `kx baseline-runner`: times an AOTInductor package as the Inductor baseline of an op on one GPU, in a process
 * of its own (a package that crashes takes only this process down). Reads the worker's baseline request (JSON:
 * "op", "settings") on `in` and writes one BaselineMeasurement as JSON to `out`, or {"ok": false, "error": ...}.
 * Returns the process's exit code (0 with a measurement, 1 otherwise).
 */
int runInductorPackageBaseline(const std::string &packagePath, int device, std::istream &in, std::ostream &out);

} // namespace kx
