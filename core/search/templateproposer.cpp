#include "core/search/templateproposer.h"

#include "core/codegen/kerneltemplate.h"
#include "core/search/population.h"

#include <algorithm>
#include <optional>

namespace kx {
namespace {

constexpr int kAttempts = 24;
// Share of mutations that move a kernel to another template supporting the op (CUDA cores -> tensor cores).
constexpr double kTemplateSwitchRate = 0.15;

struct Context
{
    const Op &op;
    OpRecipe recipe;
    const KernelTemplate *kernelTemplate = nullptr;
    std::vector<ParamDef> definitions;
};

Expected<Context> contextFor(const Op &op, const std::string &templateName = {})
{
    auto recipe = recipeOf(op);
    if (!recipe)
        return recipe.error();
    for (const auto *candidate : kernelTemplates()) {
        if (!templateName.empty() && candidate->name() != templateName)
            continue;
        if (candidate->supports(op, *recipe))
            return Context{op, *recipe, candidate, candidate->parameters(op, *recipe)};
    }
    if (!templateName.empty())
        return Error{"template " + templateName + " does not support op " + op.name};
    return Error{"no code template supports op " + op.name + " (recipe family " + recipe->family + ")"};
}

Candidate build(const Context &context, const Params &params, Origin origin, const std::string &operatorName,
                const std::string &description, const std::vector<const ScoredCandidate *> &parents)
{
    const auto generated = context.kernelTemplate->generate(context.op, context.recipe, params);
    Candidate candidate;
    candidate.opName = context.op.name;
    candidate.source = generated.source;
    candidate.launchPlan = generated.launchPlan;
    candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
    candidate.origin = origin;
    candidate.operatorName = operatorName;
    candidate.description = description;
    candidate.genome = toJson(Genome{context.kernelTemplate->name(), params});
    for (const auto *parent : parents)
        candidate.parentIds.push_back(parent->candidate.id);
    return candidate;
}

const ParamDef *definition(const Context &context, const std::string &name)
{
    for (const auto &definition : context.definitions)
        if (definition.name == name)
            return &definition;
    return nullptr;
}

std::string change(const ParamDef &definition, int from, int to)
{
    return definition.label + " " + std::to_string(from) + " -> " + std::to_string(to);
}

bool valid(const Context &context, const Params &params)
{
    return context.kernelTemplate->check(context.op, context.recipe, params).empty();
}

Expected<Genome> genomeOf(const ScoredCandidate &scored)
{
    if (scored.candidate.genome.empty())
        return Error{"candidate " + scored.candidate.id.substr(0, 12) + " has no template genome (made by hand?)"};
    return genomeFromJson(scored.candidate.genome);
}

/// A parent's genome and the context of its template: what mutation and repair start from.
struct BreedingContext
{
    Genome genome;
    Context context;
};

Expected<BreedingContext> breedingContext(const Op &op, const ScoredCandidate &parent)
{
    auto genome = genomeOf(parent);
    if (!genome)
        return genome.error();
    auto context = contextFor(op, genome->templateName);
    if (!context)
        return context.error();
    return BreedingContext{std::move(*genome), std::move(*context)};
}

// The other templates that can make a kernel for the op (they support it, and its policy lets them), in
// registry order.
std::vector<Context> otherContexts(const Op &op, const std::string &templateName)
{
    std::vector<Context> contexts;
    const auto recipe = recipeOf(op);
    if (!recipe)
        return contexts;
    for (const auto *candidate : kernelTemplates())
        if (candidate->name() != templateName && candidate->supports(op, *recipe)
            && candidate->check(op, *recipe, candidate->defaults(op, *recipe)).empty())
            contexts.push_back(Context{op, *recipe, candidate, candidate->parameters(op, *recipe)});
    return contexts;
}

Params tf32Changes(const Context &context)
{
    return context.kernelTemplate->tf32Changes(context.op, context.recipe);
}

Params withChanges(Params params, const Params &changes)
{
    for (const auto &[name, value] : changes)
        params[name] = value;
    return params;
}

// The changes to the defaults that the first generation tries beside them: the template's alternatives and, where
// the run's policy allows TF32, the defaults and each alternative in plain TF32.
std::vector<Params> firstAlternatives(const Context &context, Precision precision)
{
    auto alternatives = context.kernelTemplate->alternatives(context.op, context.recipe);
    const Params tf32 = allowsTf32(precision) ? tf32Changes(context) : Params{};
    if (tf32.empty())
        return alternatives;
    std::vector<Params> all{tf32};
    for (const auto &changes : alternatives) {
        all.push_back(changes);
        all.push_back(withChanges(changes, tf32));
    }
    return all;
}

ProposalResult translate(const ProposalRequest &request)
{
    auto context = contextFor(request.op);
    if (!context)
        return {{}, context.error().message};
    Params params = context->kernelTemplate->defaults(request.op, context->recipe);
    std::string description = "First kernel from the " + context->kernelTemplate->name() + " template (its defaults).";
    if (request.generation > 0) {
        // Nothing correct yet: start over from a random valid point of the parameter space.
        SplitMix random(request.seed);
        for (int attempt = 0; attempt < kAttempts; ++attempt) {
            Params candidate;
            for (const auto &definition : context->definitions)
                candidate[definition.name] = definition.values[random.below(definition.values.size())];
            if (valid(*context, candidate)) {
                params = candidate;
                description = "Fresh start from a random point of the " + context->kernelTemplate->name()
                              + " template (no correct kernel yet).";
                break;
            }
        }
    }
    if (!valid(*context, params))
        return {{}, context->kernelTemplate->check(request.op, context->recipe, params)};
    ProposalResult result{{build(*context, params, Origin::Translated, "translate", description, {})}, {}};
    // The first generation also holds the template's alternatives to its defaults (a pipeline's products on wgmma,
    // which only Hopper compiles, and as library calls), so the GPU at hand decides among them from the start.
    if (request.generation == 0)
        for (const auto &changes : firstAlternatives(*context, request.precision)) {
            Params alternative = params;
            std::string changed;
            for (const auto &[name, value] : changes) {
                const ParamDef *changedDefinition = definition(*context, name);
                if (changedDefinition && alternative.count(name) && alternative.at(name) != value)
                    changed += (changed.empty() ? "" : ", ") + change(*changedDefinition, alternative.at(name), value);
                alternative[name] = value;
            }
            if (alternative != params && valid(*context, alternative))
                result.candidates.push_back(build(*context, alternative, Origin::Translated, "translate",
                                                  "First kernel from the " + context->kernelTemplate->name()
                                                      + " template, its defaults with " + changed
                                                      + ", beside the translation.",
                                                  {}));
        }
    // The first generation also holds the defaults of every other template that can make the op (CUDA cores,
    // tensor cores, a library product): the search compares the families from the start rather than waiting
    // for a mutation to switch.
    if (request.generation == 0)
        for (const auto &other : otherContexts(request.op, context->kernelTemplate->name())) {
            const Params defaults = other.kernelTemplate->defaults(request.op, other.recipe);
            result.candidates.push_back(build(other, defaults, Origin::Translated, "translate",
                                              "First kernel from the " + other.kernelTemplate->name()
                                                  + " template (its defaults), beside the "
                                                  + context->kernelTemplate->name() + " translation.",
                                              {}));
            const Params tf32 = allowsTf32(request.precision) ? withChanges(defaults, tf32Changes(other)) : defaults;
            if (tf32 != defaults && valid(other, tf32))
                result.candidates.push_back(build(other, tf32, Origin::Translated, "translate",
                                                  "First kernel from the " + other.kernelTemplate->name()
                                                      + " template, its defaults in plain TF32 (the run allows it), "
                                                        "beside the "
                                                      + context->kernelTemplate->name() + " translation.",
                                                  {}));
        }
    return result;
}

// A child on another template (one of otherContexts(), so its defaults are valid): the defaults, keeping each
// parameter both templates share where that stays valid.
Candidate switchTemplate(const Context &target, const Genome &genome, const ScoredCandidate &parent)
{
    Params params = target.kernelTemplate->defaults(target.op, target.recipe);
    std::string kept;
    for (const auto &definition : target.definitions) {
        const auto inherited = genome.params.find(definition.name);
        if (inherited == genome.params.end() || inherited->second == params[definition.name])
            continue;
        Params changed = params;
        changed[definition.name] = inherited->second;
        if (!valid(target, changed))
            continue;
        params = changed;
        kept += (kept.empty() ? "" : ", ") + definition.label + " " + std::to_string(inherited->second);
    }
    return build(target, params, Origin::Mutated, "switch-template",
                 "Template switch: " + genome.templateName + " -> " + target.kernelTemplate->name() + " (its defaults"
                     + (kept.empty() ? std::string() : "; kept " + kept) + ").",
                 {&parent});
}

// A random valid point of the context's space that the run does not have; how many parameters change from
// `from` is up to chance (all, for a fresh start).
std::optional<Params> randomPoint(const ProposalRequest &request, const Context &context, const Params &from,
                                  int changes, SplitMix &random)
{
    std::vector<const ParamDef *> movable;
    for (const auto &definition : context.definitions)
        if (definition.values.size() > 1)
            movable.push_back(&definition);
    if (movable.empty())
        return std::nullopt;
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        Params params = from;
        for (int change = 0; change < changes; ++change) {
            const auto &definition = *movable[random.below(movable.size())];
            params[definition.name] = definition.values[random.below(definition.values.size())];
        }
        if (params != from && valid(context, params)
            && !request.knows(build(context, params, Origin::Mutated, {}, {}, {}).id))
            return params;
    }
    return std::nullopt;
}

std::string changes(const Context &context, const Params &from, const Params &to)
{
    std::string text;
    for (const auto &[name, value] : to)
        if (const auto old = from.find(name); old != from.end() && old->second != value)
            if (const auto *def = definition(context, name))
                text += (text.empty() ? "" : ", ") + change(*def, old->second, value);
    return text;
}

// When every single change tried is in the run already (a template with few parameters uses up its
// neighbourhood quickly), several parameters change at once; failing that, the child is a fresh random point
// of the parent's or another template. Without this a search stops early with "found nothing new".
ProposalResult widerMutation(const ProposalRequest &request, const Context &context, const Genome &genome,
                             const ScoredCandidate &parent, SplitMix &random)
{
    if (const auto params = randomPoint(request, context, genome.params, 2 + int(random.below(2)), random))
        return {{build(context, *params, Origin::Mutated, "mutate-wide",
                       "Wider mutation (the single changes tried are in the run already): "
                           + changes(context, genome.params, *params) + ".",
                       {&parent})},
                {}};
    const auto others = otherContexts(request.op, genome.templateName);
    std::vector<const Context *> contexts{&context};
    for (const auto &other : others)
        contexts.push_back(&other);
    for (const auto *candidateContext : contexts) {
        const Context &target = *candidateContext;
        const Params defaults = target.kernelTemplate->defaults(request.op, target.recipe);
        if (const auto params = randomPoint(request, target, defaults, int(target.definitions.size()) * 2, random))
            return {{build(target, *params, Origin::Mutated, "explore",
                           "Fresh point of the " + target.kernelTemplate->name() + " template (the neighbourhood of "
                               + parent.candidate.id.substr(0, 8) + " is in the run already).",
                           {&parent})},
                    {}};
    }
    return {{}, "no new valid mutation of " + parent.candidate.id.substr(0, 12) + " found"};
}

ProposalResult mutate(const ProposalRequest &request)
{
    const auto &parent = request.parents.front();
    auto bred = breedingContext(request.op, parent);
    if (!bred)
        return {{}, bred.error().message};
    const Genome *genome = &bred->genome;
    const Context *context = &bred->context;
    SplitMix random(request.seed);

    if (const auto others = otherContexts(request.op, genome->templateName);
        !others.empty() && random.unit() < kTemplateSwitchRate) {
        auto child = switchTemplate(others[random.below(others.size())], *genome, parent);
        if (!request.knows(child.id))
            return {{std::move(child)}, {}};
    }

    // Sometimes copy a parameter from a stepping stone of the same template: reuse what worked before.
    std::vector<const ScoredCandidate *> donors;
    for (const auto &stone : request.steppingStones)
        if (auto stoneGenome = genomeOf(stone);
            stoneGenome && stoneGenome->templateName == genome->templateName && stoneGenome->params != genome->params)
            donors.push_back(&stone);
    if (!donors.empty() && random.unit() < 0.2) {
        const auto *donor = donors[random.below(donors.size())];
        const auto donorParams = genomeFromJson(donor->candidate.genome)->params;
        for (int attempt = 0; attempt < kAttempts; ++attempt) {
            const auto &def = context->definitions[random.below(context->definitions.size())];
            const auto from = genome->params.find(def.name), to = donorParams.find(def.name);
            if (from == genome->params.end() || to == donorParams.end() || from->second == to->second)
                continue;
            Params params = genome->params;
            params[def.name] = to->second;
            if (!valid(*context, params))
                continue;
            auto child = build(*context, params, Origin::Mutated, "transplant",
                               "Transplant from " + donor->candidate.id.substr(0, 8) + ": "
                                   + change(def, from->second, to->second) + ".",
                               {&parent});
            if (!request.knows(child.id))
                return {{std::move(child)}, {}};
        }
    }
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        const auto &def = context->definitions[random.below(context->definitions.size())];
        if (def.values.size() < 2)
            continue;
        const int current = genome->params.count(def.name) ? genome->params.at(def.name) : def.values.front();
        const auto position = std::find(def.values.begin(), def.values.end(), current) - def.values.begin();
        std::size_t next;
        if (random.unit() < 0.7) { // a neighbouring value: small steps keep good kernels good
            const bool up = position == 0 || (std::size_t(position) + 1 < def.values.size() && random.below(2) == 1);
            next = up ? std::size_t(position) + 1 : std::size_t(position) - 1;
        } else {
            next = random.below(def.values.size());
        }
        if (next >= def.values.size() || def.values[next] == current)
            continue;
        Params params = genome->params;
        params[def.name] = def.values[next];
        if (!valid(*context, params))
            continue;
        auto child = build(*context, params, Origin::Mutated, "mutate-" + def.name,
                           "Mutation: " + change(def, current, def.values[next]) + ".", {&parent});
        if (!request.knows(child.id))
            return {{std::move(child)}, {}};
    }
    return widerMutation(request, *context, *genome, parent, random);
}

ProposalResult crossover(const ProposalRequest &request)
{
    const auto &first = request.parents[0];
    const auto &second = request.parents[1];
    const auto a = genomeOf(first), b = genomeOf(second);
    if (!a || !b)
        return {{}, !a ? a.error().message : b.error().message};
    auto context = contextFor(request.op, a->templateName);
    if (!context)
        return {{}, context.error().message};
    SplitMix random(request.seed);
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
        Params params = a->params;
        std::vector<std::string> fromSecond;
        for (const auto &[name, value] : b->params) {
            if (!params.count(name) || params[name] == value || random.below(2) == 0)
                continue;
            params[name] = value;
            fromSecond.push_back(name);
        }
        if (fromSecond.empty() || params == b->params || !valid(*context, params))
            continue;
        std::string taken;
        for (const auto &name : fromSecond)
            taken += (taken.empty() ? "" : ", ") + definition(*context, name)->label;
        auto child = build(*context, params, Origin::Crossover, "crossover",
                           "Crossover: " + first.candidate.id.substr(0, 8) + " with " + taken + " from "
                               + second.candidate.id.substr(0, 8) + ".",
                           {&first, &second});
        if (!request.knows(child.id))
            return {{std::move(child)}, {}};
    }
    return {{},
            "parents " + first.candidate.id.substr(0, 8) + " and " + second.candidate.id.substr(0, 8)
                + " give no new valid combination"};
}

ProposalResult repair(const ProposalRequest &request)
{
    const auto &parent = request.parents.front();
    auto bred = breedingContext(request.op, parent);
    if (!bred)
        return {{}, bred.error().message};
    const Genome *genome = &bred->genome;
    const Context *context = &bred->context;
    const Params defaults = context->kernelTemplate->defaults(request.op, context->recipe);
    std::vector<std::string> differing;
    for (const auto &[name, value] : genome->params)
        if (defaults.count(name) && defaults.at(name) != value)
            differing.push_back(name);
    if (differing.empty())
        return {{}, "the failed candidate already uses the template defaults: nothing to repair"};
    SplitMix random(request.seed);
    const auto &name = differing[random.below(differing.size())];
    Params params = genome->params;
    params[name] = defaults.at(name);
    if (!valid(*context, params))
        return {{}, "resetting " + name + " gives an invalid combination"};
    const std::string reason = parent.evaluation ? std::string(toString(parent.evaluation->status)) : "failed";
    return {{build(*context, params, Origin::Mutated, "repair",
                   "Repair of a " + reason + " candidate: "
                       + change(*definition(*context, name), genome->params.at(name), defaults.at(name))
                       + " (the default).",
                   {&parent})},
            {}};
}

} // namespace

Expected<Candidate> translateOp(const Op &op)
{
    ProposalRequest request;
    request.op = op;
    const auto result = translate(request);
    if (result.candidates.empty())
        return Error{result.failure};
    return result.candidates.front();
}

Expected<Candidate> generateFromTemplate(const Op &op, const std::string &templateName, const Params &changes)
{
    auto context = contextFor(op, templateName);
    if (!context)
        return context.error();
    Params params = context->kernelTemplate->defaults(op, context->recipe);
    std::string changed;
    for (const auto &[name, value] : changes) {
        params[name] = value;
        changed += (changed.empty() ? "" : ", ") + name + " = " + std::to_string(value);
    }
    if (const auto problem = context->kernelTemplate->check(op, context->recipe, params); !problem.empty())
        return Error{templateName + ": " + problem};
    return build(*context, params, Origin::Manual, "generate",
                 "From the " + templateName + " template"
                     + (changed.empty() ? std::string(" (its defaults).") : " with " + changed + "."),
                 {});
}

std::string TemplateProposer::cannotPropose(const Op &op) const
{
    const auto context = contextFor(op);
    return context ? std::string() : context.error().message;
}

ProposalResult TemplateProposer::propose(const ProposalRequest &request, std::stop_token)
{
    switch (request.kind) {
    case ProposalKind::Translate: return translate(request);
    case ProposalKind::Mutate: return mutate(request);
    case ProposalKind::Crossover: return crossover(request);
    case ProposalKind::Repair: return repair(request);
    }
    return {{}, "unknown proposal kind"};
}

} // namespace kx
