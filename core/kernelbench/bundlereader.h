#pragma once

#include "core/domain/op.h"
#include "core/kernelbench/opgraph.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/// What importing a problem file produced.
struct ImportedProblem
{
    Op op; ///< Without a recipe when the graph cannot be translated.
    OpGraph graph; ///< The traced calls, device moves folded (withDeviceMovesFolded).
    std::vector<std::string> notes; ///< What the helper noted (baked-in constants, a dropped shape set).
    std::string translationError;   ///< Why the templates cannot generate the op; empty when they can.
    std::string sha256;             ///< Of the problem file.

    bool translated() const { return translationError.empty(); }
};

/**
 * Reads a bundle written by kx_problem_bundle.py (problem.json, reference.pt) into an Op: named
 * "kb/<file stem>", the file's text as its reference source, the traced module as its reference module,
 * cost expressions from the op graph and a recipe from GraphTranslator where the graph translates.
 */
class BundleReader
{
public:
    /// @p problemPath is the problem file the bundle was made from (its text and name go into the op).
    static Expected<ImportedProblem> read(const std::string &bundleDir, const std::string &problemPath);
};

} // namespace kx
