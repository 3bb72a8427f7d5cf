// The offline proposer: translation, mutation, crossover, transplant and repair give valid, compilable
// candidates that say what changed; proposals are deterministic for a seed.
#include "core/codegen/kerneltemplate.h"
#include "core/ops/builtinops.h"
#include "core/plan/launchplan.h"
#include "core/plan/nvrtccompiler.h"
#include "core/search/population.h"
#include "core/search/templateproposer.h"

#include "doctestprinters.h"

#include <doctest/doctest.h>

#include <set>

using namespace kx;

namespace {

ScoredCandidate correct(Candidate candidate, double speedup)
{
    Evaluation evaluation;
    evaluation.status = EvalStatus::Correct;
    evaluation.speedup = speedup;
    return {std::move(candidate), evaluation};
}

Params paramsOf(const Candidate &candidate)
{
    return genomeFromJson(candidate.genome)->params;
}

int differences(const Params &a, const Params &b)
{
    int count = 0;
    for (const auto &[name, value] : a)
        count += b.count(name) && b.at(name) != value;
    return count;
}

std::string compileAndResolve(const Op &op, const Candidate &candidate)
{
    CompileOptions options;
    options.arch = "sm_90a"; // every gemm template compiles for Hopper (gemm-wgmma only there)
    const auto compiled = NvrtcCompiler().compile(candidate.source, options);
    if (!compiled.ok)
        return compiled.error + "\n" + compiled.stats.log;
    const auto plan = parseLaunchPlan(candidate.launchPlan);
    if (!plan)
        return plan.error().message;
    for (const auto &shapes : op.shapeSets)
        if (const auto resolved = resolveLaunchPlan(*plan, op, shapes, compiled.kernels); !resolved)
            return resolved.error().message;
    return {};
}

} // namespace

TEST_CASE("a mutation changes one parameter")
{
    for (const char *opName : {"silu", "scale_bias", "row_max", "softmax", "layer_norm", "matmul", "transpose"}) {
        SUBCASE(opName)
        {
            const Op &op = *findBuiltInOp(opName);
            const auto root = translateOp(op);
            REQUIRE_MESSAGE(root, (root ? "" : root.error().message));
            TemplateProposer proposer;
            int mutations = 0;
            for (std::uint64_t seed = 1; seed <= 12; ++seed) {
                ProposalRequest request;
                request.op = op;
                request.kind = ProposalKind::Mutate;
                request.parents = {correct(*root, 1.0)};
                request.seed = seed;
                request.generation = 1;
                const auto result = proposer.propose(request, {});
                REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
                const auto &child = result.candidates.front();
                CHECK(child.parentIds == std::vector<std::string>{root->id});
                CHECK(child.origin == Origin::Mutated);
                CHECK(child.id != root->id);
                CHECK(child.description.find("->") != std::string::npos); // says what changed
                if (child.operatorName == "switch-template") // a gemm may move to tensor cores: tested below
                    CHECK(genomeFromJson(child.genome)->templateName != genomeFromJson(root->genome)->templateName);
                else
                    CHECK(differences(paramsOf(*root), paramsOf(child)) == 1);
                // Same request, same child.
                CHECK(proposer.propose(request, {}).candidates.front().id == child.id);
                if (NvrtcCompiler::available() && seed <= 4) {
                    const std::string failure = compileAndResolve(op, child);
                    CHECK_MESSAGE(failure.empty(), failure);
                }
                ++mutations;
            }
            CHECK(mutations == 12);
        }
    }
}

namespace {

// The children of `seeds` mutations of the op's translation that moved to another template.
std::vector<Candidate> templateSwitches(const Op &op, std::uint64_t seeds)
{
    const auto root = *translateOp(op);
    TemplateProposer proposer;
    std::vector<Candidate> switches;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed) {
        ProposalRequest request;
        request.op = op;
        request.kind = ProposalKind::Mutate;
        request.parents = {correct(root, 1.0)};
        request.seed = seed;
        const auto result = proposer.propose(request, {});
        REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
        if (result.candidates.front().operatorName == "switch-template")
            switches.push_back(result.candidates.front());
    }
    return switches;
}

} // namespace

TEST_CASE("a mutation can move a gemm to tensor cores, and only ops with another template switch")
{
    // matmul's policy allows no library step: its other templates are the two tensor-core ones.
    const Op &matmul = *findBuiltInOp("matmul");
    const auto root = *translateOp(matmul);
    REQUIRE(genomeFromJson(root.genome)->templateName == std::string("gemm"));
    const auto switches = templateSwitches(matmul, 60);
    CHECK(switches.size() >= 3); // about 15% of 60 mutations
    CHECK(switches.size() <= 20);
    for (const auto &child : switches) {
        const auto genome = genomeFromJson(child.genome);
        REQUIRE(genome);
        const bool tensorCores = genome->templateName == "gemm-tensorcore" || genome->templateName == "gemm-wgmma";
        CHECK_MESSAGE(tensorCores, genome->templateName);
        CHECK(child.description.rfind("Template switch: gemm -> " + genome->templateName + " (its defaults", 0) == 0);
        // The block tile the parent had (64 x 64) is kept where the target has the same parameter.
        CHECK(genome->params.at("bm") == paramsOf(root).at("bm"));
        CHECK(child.parentIds == std::vector<std::string>{root.id});
    }
    if (NvrtcCompiler::available() && !switches.empty()) {
        const std::string failure = compileAndResolve(matmul, switches.front());
        CHECK_MESSAGE(failure.empty(), failure);
    }

    // linear_bias_relu allows aten::linear: the library GEMM with a fused epilogue is a destination too.
    std::set<std::string> destinations;
    for (const auto &child : templateSwitches(*findBuiltInOp("linear_bias_relu"), 80))
        destinations.insert(genomeFromJson(child.genome)->templateName);
    CHECK(destinations == std::set<std::string>{"gemm-library", "gemm-tensorcore", "gemm-wgmma"});

    CHECK(templateSwitches(*findBuiltInOp("relu"), 30).empty());
}

TEST_CASE("a crossover mixes two parents")
{
    const Op &op = *findBuiltInOp("gelu_tanh");
    const auto root = *translateOp(op);
    TemplateProposer proposer;
    // Two parents that differ in several parameters.
    Params a = paramsOf(root), b = paramsOf(root);
    b["block"] = 1024;
    b["vec"] = 4;
    b["unroll"] = 4;
    const auto *elementwise = findKernelTemplate("elementwise");
    const auto recipe = *recipeOf(op);
    auto make = [&](const Params &params) {
        const auto generated = elementwise->generate(op, recipe, params);
        Candidate candidate;
        candidate.opName = op.name;
        candidate.source = generated.source;
        candidate.launchPlan = generated.launchPlan;
        candidate.id = makeCandidateId(candidate.source, candidate.launchPlan);
        candidate.genome = toJson(Genome{"elementwise", params});
        return candidate;
    };
    const auto first = make(a), second = make(b);
    ProposalRequest request;
    request.op = op;
    request.kind = ProposalKind::Crossover;
    request.parents = {correct(first, 1.1), correct(second, 1.3)};
    request.seed = 7;
    const auto result = proposer.propose(request, {});
    REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
    const auto &child = result.candidates.front();
    CHECK(child.origin == Origin::Crossover);
    CHECK(child.parentIds == (std::vector<std::string>{first.id, second.id}));
    const Params mixed = paramsOf(child);
    CHECK((mixed != a && mixed != b));
    for (const auto &[name, value] : mixed)
        CHECK((value == a.at(name) || value == b.at(name))); // every gene from a parent
    if (NvrtcCompiler::available()) {
        const std::string failure = compileAndResolve(op, child);
        CHECK_MESSAGE(failure.empty(), failure);
    }
}

TEST_CASE("a repair resets toward the defaults")
{
    const Op &op = *findBuiltInOp("softmax");
    const auto root = *translateOp(op);
    TemplateProposer proposer;
    ProposalRequest mutate;
    mutate.op = op;
    mutate.kind = ProposalKind::Mutate;
    mutate.parents = {correct(root, 1.0)};
    mutate.seed = 3;
    const auto mutated = proposer.propose(mutate, {}).candidates.front();
    Evaluation failed;
    failed.status = EvalStatus::Incorrect;
    ProposalRequest repair;
    repair.op = op;
    repair.kind = ProposalKind::Repair;
    repair.parents = {ScoredCandidate{mutated, failed}};
    repair.seed = 1;
    const auto result = proposer.propose(repair, {});
    REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
    CHECK(result.candidates.front().id == root.id); // one changed parameter, reset: back to the translation
    CHECK(result.candidates.front().description.find("Repair") == 0);

    repair.parents = {ScoredCandidate{root, failed}};
    const auto nothing = proposer.propose(repair, {});
    CHECK(nothing.candidates.empty());
    CHECK(!nothing.failure.empty());
}

TEST_CASE("stepping stones are transplanted")
{
    const Op &op = *findBuiltInOp("relu");
    const auto root = *translateOp(op);
    auto params = paramsOf(root);
    params["block"] = 1024;
    const auto generated = findKernelTemplate("elementwise")->generate(op, *recipeOf(op), params);
    Candidate stone;
    stone.opName = op.name;
    stone.source = generated.source;
    stone.launchPlan = generated.launchPlan;
    stone.id = makeCandidateId(stone.source, stone.launchPlan);
    stone.genome = toJson(Genome{"elementwise", params});
    TemplateProposer proposer;
    int transplants = 0;
    for (std::uint64_t seed = 1; seed <= 60; ++seed) {
        ProposalRequest request;
        request.op = op;
        request.kind = ProposalKind::Mutate;
        request.parents = {correct(root, 1.0)};
        request.steppingStones = {correct(stone, 1.2)};
        request.seed = seed;
        const auto result = proposer.propose(request, {});
        if (!result.candidates.empty() && result.candidates.front().operatorName == "transplant") {
            ++transplants;
            CHECK(paramsOf(result.candidates.front())["block"] == 1024);
        }
    }
    CHECK(transplants > 0);
}

TEST_CASE("hand-made candidates cannot be mutated")
{
    const Op &op = *findBuiltInOp("relu");
    Candidate manual = *translateOp(op);
    manual.genome.clear();
    ProposalRequest request;
    request.op = op;
    request.kind = ProposalKind::Mutate;
    request.parents = {correct(manual, 1.0)};
    const auto result = TemplateProposer().propose(request, {});
    CHECK(result.candidates.empty());
    CHECK(result.failure.find("genome") != std::string::npos);
}

TEST_CASE("the first generation starts every template that can make the op")
{
    const auto firstGeneration = [](const char *opName) {
        ProposalRequest request;
        request.op = *findBuiltInOp(opName);
        request.kind = ProposalKind::Translate;
        request.generation = 0;
        const auto result = TemplateProposer().propose(request, {});
        REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
        std::vector<std::string> templates;
        for (const auto &candidate : result.candidates) {
            CHECK(candidate.origin == Origin::Translated);
            CHECK(candidate.parentIds.empty());
            CHECK(paramsOf(candidate)
                  == findKernelTemplate(genomeFromJson(candidate.genome)->templateName)
                         ->defaults(request.op, *recipeOf(request.op)));
            templates.push_back(genomeFromJson(candidate.genome)->templateName);
        }
        CHECK(result.candidates.front().id == translateOp(request.op)->id); // the translation comes first
        return templates;
    };
    // linear_bias_relu allows the library product: CUDA cores, tensor cores (mma.sync and Hopper's wgmma) and cuBLAS
    // with a fused epilogue.
    CHECK(firstGeneration("linear_bias_relu")
          == std::vector<std::string>{"gemm", "gemm-tensorcore", "gemm-wgmma", "gemm-library"});
    // matmul's policy allows no library step.
    CHECK(firstGeneration("matmul") == std::vector<std::string>{"gemm", "gemm-tensorcore", "gemm-wgmma"});
    CHECK(firstGeneration("softmax") == std::vector<std::string>{"softmax"});
    // Rows of 1 MB: the split kernel (the translation, on any GPU) and the row in a Hopper cluster's shared memory;
    // LayerNorm's rows of 4096 fit one block.
    CHECK(firstGeneration("instance_norm") == std::vector<std::string>{"norm-split", "norm-cluster"});
    CHECK(firstGeneration("layer_norm") == std::vector<std::string>{"norm"});
    // Attention with head dims up to 128: the composed steps (the translation) and the fused kernel.
    CHECK(firstGeneration("attention") == std::vector<std::string>{"attention", "attention-fused"});

    // A fresh start later in a run (nothing correct yet) proposes one kernel.
    ProposalRequest later;
    later.op = *findBuiltInOp("linear_bias_relu");
    later.kind = ProposalKind::Translate;
    later.generation = 3;
    later.seed = 7;
    CHECK(TemplateProposer().propose(later, {}).candidates.size() == 1);
}

TEST_CASE("where the run allows TF32, the first generation also holds each tensor-core template in plain TF32")
{
    const auto firstGeneration = [](const char *opName, Precision precision) {
        ProposalRequest request;
        request.op = *findBuiltInOp(opName);
        request.kind = ProposalKind::Translate;
        request.precision = precision;
        const auto result = TemplateProposer().propose(request, {});
        REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
        std::vector<std::pair<std::string, Params>> genomes;
        for (const auto &candidate : result.candidates) {
            const auto genome = genomeFromJson(candidate.genome);
            genomes.emplace_back(genome->templateName, genome->params);
            CHECK_MESSAGE(compileAndResolve(request.op, candidate).empty(), candidate.genome);
        }
        return genomes;
    };
    const auto plainTf32 = [](const std::vector<std::pair<std::string, Params>> &genomes) {
        std::vector<std::string> templates;
        for (const auto &[name, params] : genomes)
            if (params.count("products") && params.at("products") == 1)
                templates.push_back(name);
        return templates;
    };
    CHECK(plainTf32(firstGeneration("linear_bias_relu", Precision::Fp32)).empty());
    const auto tf32 = firstGeneration("linear_bias_relu", Precision::Tf32);
    CHECK(plainTf32(tf32) == std::vector<std::string>{"gemm-tensorcore", "gemm-wgmma"});
    // gemm-wgmma's plain TF32 takes its wide tile.
    for (const auto &[name, params] : tf32)
        if (name == "gemm-wgmma" && params.at("products") == 1)
            CHECK((params.at("bm") == 128 && params.at("bn") == 256 && params.at("stages") == 4));
}

TEST_CASE("a mutation looks past the children the run has already")
{
    // A search keeps breeding from its best few kernels: once a parent's single changes are all in the run,
    // a proposer that hands them back again makes the search stop early with "nothing new".
    for (const char *opName : {"softmax", "linear_bias_relu"}) {
        SUBCASE(opName)
        {
            const Op &op = *findBuiltInOp(opName);
            const auto root = translateOp(op);
            REQUIRE(root);
            std::set<std::string> known{root->id};
            TemplateProposer proposer;
            int wider = 0;
            for (std::uint64_t seed = 1; seed <= 60; ++seed) {
                ProposalRequest request;
                request.op = op;
                request.kind = ProposalKind::Mutate;
                request.parents = {correct(*root, 1.0)};
                request.seed = seed;
                request.generation = 1;
                request.isKnown = [&](const std::string &id) { return known.count(id) > 0; };
                const auto result = proposer.propose(request, {});
                REQUIRE_MESSAGE(!result.candidates.empty(), result.failure);
                const auto &child = result.candidates.front();
                CHECK_MESSAGE(known.insert(child.id).second, child.description);
                CHECK(child.parentIds == std::vector<std::string>{root->id});
                if (child.operatorName == "mutate-wide" || child.operatorName == "explore") {
                    ++wider;
                    CHECK(!child.description.empty());
                    if (wider <= 2) // a wider step is still a valid kernel
                        CHECK(compileAndResolve(op, child) == "");
                }
            }
            CHECK(wider > 0); // sixty children use up one parent's single changes
        }
    }
}

TEST_CASE("a crossover does not repeat a child the run has")
{
    const Op &op = *findBuiltInOp("softmax");
    const auto root = translateOp(op);
    REQUIRE(root);
    TemplateProposer proposer;
    // Two parents that differ in several parameters: the root and a wide step from it.
    std::set<std::string> known{root->id};
    ProposalRequest widen;
    widen.op = op;
    widen.kind = ProposalKind::Mutate;
    widen.parents = {correct(*root, 1.0)};
    widen.generation = 1;
    std::vector<Candidate> parents{*root};
    for (std::uint64_t seed = 1; parents.size() < 2 && seed < 200; ++seed) {
        widen.seed = seed;
        widen.isKnown = [&](const std::string &id) { return known.count(id) > 0; };
        const auto result = proposer.propose(widen, {});
        REQUIRE(!result.candidates.empty());
        known.insert(result.candidates.front().id);
        if (differences(paramsOf(result.candidates.front()), paramsOf(*root)) >= 2)
            parents.push_back(result.candidates.front());
    }
    REQUIRE(parents.size() == 2);
    known = {parents[0].id, parents[1].id};
    std::set<std::string> children;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        ProposalRequest request;
        request.op = op;
        request.kind = ProposalKind::Crossover;
        request.parents = {correct(parents[0], 1.0), correct(parents[1], 1.0)};
        request.seed = seed;
        request.generation = 2;
        request.isKnown = [&](const std::string &id) { return known.count(id) > 0 || children.count(id) > 0; };
        const auto result = proposer.propose(request, {});
        if (result.candidates.empty())
            break; // every mix of the two is known: an honest "nothing new"
        CHECK(children.insert(result.candidates.front().id).second);
        CHECK(!known.count(result.candidates.front().id));
    }
    CHECK(!children.empty());
}
