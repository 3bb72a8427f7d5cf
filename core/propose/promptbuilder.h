#pragma once

#include "core/search/proposer.h"
#include "core/util/expected.h"

#include <map>
#include <string>

namespace kx {

/// The editable prompt templates: system.txt, format.txt and one per operator (translate.txt, mutate.txt,
/// crossover.txt, repair.txt), with {{placeholders}}.
struct PromptTemplates
{
    std::map<std::string, std::string> texts; ///< File name without ".txt" -> text.

    /// Reads every template from dir; an Error names a missing or unreadable file.
    static Expected<PromptTemplates> load(const std::string &dir);
    /// The templates folder: @p overrideDir when given, else the installed one
    /// (../share/kernel-explorer/prompts next to the program), else the one in the source tree.
    static Expected<std::string> findDir(const std::string &overrideDir = {});
    /// The names every template folder must have.
    static const std::vector<std::string> &requiredNames();
};

/// A prompt ready to send: a system and a user message.
struct Prompt
{
    std::string system;
    std::string user;

    /// Both messages as one text (what is stored and hashed, and what a command reads on stdin).
    std::string combined() const;
};

/**
 * Fills the templates for a proposal request: the op (reference source, tensors, shapes, policy), the
 * candidate format rules, the parent(s) with code, plan, runtime, speedup, verification failures and
 * compile statistics, a contrastive list of earlier variants sorted by speed (the fastest shown in
 * full, asking why it is fastest), and stepping stones from earlier runs.
 */
class PromptBuilder
{
public:
    explicit PromptBuilder(PromptTemplates templates, int contrastiveVariants = 6);

    Expected<Prompt> build(const ProposalRequest &request) const;

    /// Replaces {{name}} by values[name]; an unknown placeholder is an Error naming it.
    static Expected<std::string> render(const std::string &text, const std::map<std::string, std::string> &values,
                                        const std::string &templateName);

private:
    PromptTemplates m_templates;
    int m_contrastiveVariants;
};

} // namespace kx
