#pragma once

#include "core/codegen/oprecipe.h"
#include "core/domain/op.h"

#include <map>
#include <string>
#include <vector>

namespace kx {

/// One tunable aspect of a template, e.g. {"block", {128, 256, 512, 1024}, "block size"}.
struct ParamDef
{
    std::string name;
    std::vector<int> values;
    std::string label; ///< Words for mutation descriptions: "block size 256 -> 512".
};

using Params = std::map<std::string, int>;

/// A point in a template's parameter space: everything needed to regenerate a candidate.
struct Genome
{
    std::string templateName;
    Params params;

    bool operator==(const Genome &) const = default;
};

std::string toJson(const Genome &genome);
Expected<Genome> genomeFromJson(const std::string &json);

struct GeneratedKernel
{
    std::string source;     ///< Device-only CUDA C++, readable, with a header comment.
    std::string launchPlan; ///< JSON, see core/plan/launchplan.h.
};

/**
 * A code template: turns an op (via its recipe) and a parameter choice into a candidate kernel.
 * Templates are stateless and thread-safe.
 */
class KernelTemplate
{
public:
    virtual ~KernelTemplate() = default;
    virtual std::string name() const = 0;
    virtual bool supports(const Op &op, const OpRecipe &recipe) const = 0;
    virtual std::vector<ParamDef> parameters(const Op &op, const OpRecipe &recipe) const = 0;
    /// The translation: a safe, readable first choice.
    virtual Params defaults(const Op &op, const OpRecipe &recipe) const = 0;
    /// Other points the first generation tries beside the defaults, each as changes to them: choices the defaults
    /// leave out because not every GPU runs them (wgmma needs sm_90a), or that the defaults are measured against.
    virtual std::vector<Params> alternatives(const Op &, const OpRecipe &) const { return {}; }
    /// The changes that make a point of the template run its products in plain TF32 (with the tile that suits
    /// it), for runs whose precision policy allows TF32; empty where the template has no such choice.
    virtual Params tf32Changes(const Op &, const OpRecipe &) const { return {}; }
    /// Empty when the combination is valid, otherwise why not (e.g. "256 x 8 threads exceed 1024").
    virtual std::string check(const Op &op, const OpRecipe &recipe, const Params &params) const = 0;
    virtual GeneratedKernel generate(const Op &op, const OpRecipe &recipe, const Params &params) const = 0;
};

/// Every template, in preference order (the first that supports an op translates it).
const std::vector<const KernelTemplate *> &kernelTemplates();
const KernelTemplate *findKernelTemplate(const std::string &name);

} // namespace kx
