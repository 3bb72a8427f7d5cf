#pragma once

#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"
#include "core/domain/op.h"
#include "core/kernelbench/problemimporter.h"
#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx::test {

/// Empty when the op's translation (template defaults) compiles with NVRTC for arch and its launch plan
/// resolves for every shape set; otherwise what failed. "skip" when this build has no NVRTC.
std::string translationProblem(const Op &op, const std::string &arch = "sm_90");

/// An imported op ("kb/test") of these tensors and shape sets, for translation tests.
Op makeOp(std::vector<TensorSpec> inputs, TensorSpec output, std::vector<ShapeSet> shapeSets);

/// Checks that the op's translation compiles and resolves (see translationProblem; nothing without NVRTC).
void checkCompiles(const Op &op);

/// The recipe of a translated op (fails the test when the translation failed).
OpRecipe recipeOfTranslation(const Expected<Op> &op);

/// The stages of a translation that must be a pipeline (fails the test otherwise).
std::vector<PipelineStage> pipelineStages(const Expected<Op> &op);

/// A problem file imported once per test process (each import starts PyTorch), unconfined where bubblewrap is
/// missing (the files are the project's own); nullptr where no Python with PyTorch is found.
const Expected<ImportedProblem> *importOnce(const std::string &path);
/// The same for suites that import nothing else: without a Python with PyTorch the suite is skipped (exit 77).
const Expected<ImportedProblem> &importOnceOrSkip(const std::string &path);
/// The translated op of importOnceOrSkip(path) (fails the test where the import or the translation failed).
const Op &importedOp(const std::string &path);

} // namespace kx::test
