#pragma once

#include "core/codegen/oprecipe.h"
#include "core/codegen/pipeline.h"
#include "core/domain/op.h"
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

} // namespace kx::test
