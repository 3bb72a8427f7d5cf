#pragma once

#include "core/codegen/kerneltemplate.h"
#include "core/search/proposer.h"
#include "core/util/expected.h"

namespace kx {

/**
 * The offline proposer: candidates come from the code templates (core/codegen). Translation takes a
 * template's defaults; mutation changes one parameter (mostly to a neighbouring value); crossover mixes
 * the parameters of two parents; transplant copies a parameter from a stepping stone; repair moves a
 * failed candidate's parameter back to its default. Children the run has already (ProposalRequest::isKnown) are
 * passed over; when a parent's single changes are used up, several parameters change at once, or the child is
 * a fresh point of a template. Every child says in words what changed.
 */
class TemplateProposer : public Proposer
{
public:
    std::string name() const override { return "template"; }
    ProposalResult propose(const ProposalRequest &request, std::stop_token stop) override;
    std::string cannotPropose(const Op &op) const override;
};

/// The first candidate for an op from the first template that supports it (its defaults), or why not.
Expected<Candidate> translateOp(const Op &op);

/// A candidate from a named template: its defaults with `changes` applied (a hand-picked point of its space),
/// or why not (no such template, it does not support the op, or check() refuses the parameters).
Expected<Candidate> generateFromTemplate(const Op &op, const std::string &templateName, const Params &changes);

} // namespace kx
