#pragma once

// Candidates made of the kernels other templates generate: each part keeps its own source (in a namespace of its
// own, its kernels renamed) and its plan's steps, with its tensors and shape symbols bound to the composed op's.
#include "core/codegen/kerneltemplate.h"
#include "core/util/expected.h"

#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kx::codegen {

/// Replaces every identifier of text that replacements names (whole identifiers only: "N" but not "NT").
std::string replaceIdentifiers(const std::string &text, const std::map<std::string, std::string> &replacements);

/// How a part generated for an op of its own enters the composed candidate.
struct PartBinding
{
    std::string prefix; ///< The namespace of its source, and the prefix of its kernels' and scratch buffers' names.
    /// Each tensor of the part's op -> the composed plan's argument for it: {"input": "Q"}, {"scratch": "scores"}.
    std::map<std::string, nlohmann::json> tensors;
    /// Each shape symbol of the part's op -> a plan expression over the composed op's symbols.
    std::map<std::string, std::string> symbols;
};

class KernelComposition
{
public:
    /// Adds a part's source and steps; an Error when its plan is not a kernel-step plan or names a tensor that the
    /// binding leaves out.
    Status add(const GeneratedKernel &part, const PartBinding &binding);
    /// The composed candidate's own source and steps, taken as they are (its own kernels, library steps): the
    /// steps between and around the parts.
    void addOwn(const std::string &source, const nlohmann::json &steps);
    /// A scratch buffer of the composed plan itself (an intermediate between parts).
    void addScratch(const std::string &name, const std::string &bytes);
    /// The candidate: header (comment lines), then the parts' sources in order, and the plan.
    GeneratedKernel result(const std::string &header) const;

private:
    std::string m_sources;
    nlohmann::json m_steps = nlohmann::json::array();
    std::vector<std::pair<std::string, std::string>> m_scratch;
};

} // namespace kx::codegen
