// Prompt templates: loading, placeholders, and the contrastive list of earlier variants.
#include "core/ops/builtinops.h"
#include "core/propose/promptbuilder.h"

#include "temporarydir.h"
#include "testfiles.h"

#include <doctest/doctest.h>

#include <filesystem>

using namespace kx;

namespace {

ScoredCandidate variant(const std::string &id, const std::string &description, double speedup, EvalStatus status)
{
    ScoredCandidate scored;
    scored.candidate.id = id;
    scored.candidate.opName = "relu";
    scored.candidate.description = description;
    scored.candidate.source = "extern \"C\" __global__ void k_" + id + "() {}\n";
    scored.candidate.launchPlan = R"({"steps": []})";
    Evaluation evaluation;
    evaluation.status = status;
    evaluation.speedup = status == EvalStatus::Correct ? speedup : 0;
    evaluation.baseline.medianMs = 1.0;
    evaluation.timing.medianMs = speedup > 0 ? 1.0 / speedup : 0;
    evaluation.compile.registers = 32;
    if (status != EvalStatus::Correct)
        evaluation.correctness.failure = "output out differs at index 17";
    scored.evaluation = evaluation;
    return scored;
}

PromptBuilder builder()
{
    const auto templates = PromptTemplates::load(KX_PROMPTS_DIR);
    REQUIRE_MESSAGE(templates, (templates ? "" : templates.error().message));
    return PromptBuilder(*templates, 6);
}

ProposalRequest requestFor(ProposalKind kind)
{
    ProposalRequest request;
    request.op = *findBuiltInOp("relu");
    request.kind = kind;
    return request;
}

} // namespace

TEST_CASE("render fills placeholders and names unknown ones")
{
    const auto text = PromptBuilder::render("a {{x}} b {{ y }}", {{"x", "1"}, {"y", "2"}}, "t");
    REQUIRE(text);
    CHECK(*text == "a 1 b 2");
    const auto unknown = PromptBuilder::render("{{nope}}", {}, "mutate");
    REQUIRE_FALSE(unknown);
    CHECK(unknown.error().message == "mutate.txt: unknown placeholder {{nope}}");
    CHECK_FALSE(PromptBuilder::render("{{open", {}, "t"));
}

TEST_CASE("the translate prompt carries the op, its shapes and the format rules")
{
    const auto prompt = builder().build(requestFor(ProposalKind::Translate));
    REQUIRE_MESSAGE(prompt, (prompt ? "" : prompt.error().message));
    CHECK(prompt->system.find("device code only") != std::string::npos);
    CHECK(prompt->user.find("torch.relu(x)") != std::string::npos);
    CHECK(prompt->user.find("N=67108864") != std::string::npos);
    CHECK(prompt->user.find("x: float32 [N]") != std::string::npos);
    CHECK(prompt->user.find("{{") == std::string::npos);
}

TEST_CASE("mutation lists earlier variants fastest first and shows the fastest in full")
{
    auto request = requestFor(ProposalKind::Mutate);
    request.parents = {variant("aaaa0001", "slow parent", 1.2, EvalStatus::Correct)};
    request.steppingStones = {variant("bbbb0002", "fast stone", 2.5, EvalStatus::Correct),
                              variant("cccc0003", "middle stone", 1.8, EvalStatus::Correct)};
    const auto prompt = builder().build(request);
    REQUIRE_MESSAGE(prompt, (prompt ? "" : prompt.error().message));
    const auto &user = prompt->user;
    const auto fast = user.find("| 1 | bbbb0002");
    const auto middle = user.find("| 2 | cccc0003");
    const auto slow = user.find("| 3 | aaaa0001");
    REQUIRE(fast != std::string::npos);
    REQUIRE(middle != std::string::npos);
    REQUIRE(slow != std::string::npos);
    CHECK(user.find("2.50x") != std::string::npos);
    CHECK(user.find("the fastest variant so far (bbbb0002") != std::string::npos);
    CHECK(user.find("why the fastest variant is faster") != std::string::npos);
    CHECK(user.find("### parent (aaaa0001") != std::string::npos);
}

TEST_CASE("repair shows the failure; crossover shows both parents; missing parents are errors")
{
    auto repair = requestFor(ProposalKind::Repair);
    repair.parents = {variant("dddd0004", "broken", 0, EvalStatus::Incorrect)};
    const auto repairPrompt = builder().build(repair);
    REQUIRE(repairPrompt);
    CHECK(repairPrompt->user.find("output out differs at index 17") != std::string::npos);

    auto crossover = requestFor(ProposalKind::Crossover);
    crossover.parents = {variant("eeee0005", "a", 1.5, EvalStatus::Correct),
                         variant("ffff0006", "b", 1.6, EvalStatus::Correct)};
    const auto crossoverPrompt = builder().build(crossover);
    REQUIRE(crossoverPrompt);
    CHECK(crossoverPrompt->user.find("parent A (eeee0005") != std::string::npos);
    CHECK(crossoverPrompt->user.find("parent B (ffff0006") != std::string::npos);

    crossover.parents.pop_back();
    CHECK_FALSE(builder().build(crossover));
    CHECK_FALSE(builder().build(requestFor(ProposalKind::Mutate)));
}

TEST_CASE("a repair prompt shows only the compiler's diagnostics of the candidate, and names the allowed headers")
{
    // As an archive written before includes were checked may hold it: the key read through an #include.
    auto repair = requestFor(ProposalKind::Repair);
    ScoredCandidate broken = variant("aaaa0007", "reads the environment", 0, EvalStatus::CompileError);
    broken.evaluation->compile.log = "/proc/self/environ(1): error: identifier \"sk\" is undefined\n"
                                     "  OPENAI_API_KEY=sk-kx-prompt-leak-61e2 HOME=/root\n"
                                     "  ^\n\n"
                                     "candidate.cu(4): error: expected a \";\"\n"
                                     "      y[i] = 1.0f +;\n"
                                     "                   ^\n\n"
                                     "2 errors detected in the compilation of \"candidate.cu\".";
    repair.parents = {broken};
    const auto prompt = builder().build(repair);
    REQUIRE_MESSAGE(prompt, (prompt ? "" : prompt.error().message));
    CHECK(prompt->user.find("candidate.cu(4): error: expected a \";\"") != std::string::npos);
    CHECK(prompt->user.find("sk-kx-prompt-leak-61e2") == std::string::npos);
    CHECK(prompt->user.find("OPENAI_API_KEY") == std::string::npos);
    CHECK(prompt->combined().find("cuda_fp16.h, cuda_bf16.h") != std::string::npos);
}

TEST_CASE("a user's template folder overrides, and a missing file is named")
{
    const test::TemporaryDir temp;
    REQUIRE(temp.isValid());
    const std::filesystem::path dir = temp.path();
    for (const auto &name : PromptTemplates::requiredNames())
        std::filesystem::copy_file(std::filesystem::path(KX_PROMPTS_DIR) / (name + ".txt"), dir / (name + ".txt"),
                                   std::filesystem::copy_options::overwrite_existing);
    REQUIRE(test::writeFile((dir / "translate.txt").string(), "Custom: write {{op_name}} please."));
    const auto found = PromptTemplates::findDir(dir.string());
    REQUIRE(found);
    const auto templates = PromptTemplates::load(*found);
    REQUIRE(templates);
    const auto prompt = PromptBuilder(*templates).build(requestFor(ProposalKind::Translate));
    REQUIRE(prompt);
    CHECK(prompt->user == "Custom: write relu please.");

    std::filesystem::remove(dir / "repair.txt");
    const auto incomplete = PromptTemplates::load(dir.string());
    REQUIRE_FALSE(incomplete);
    CHECK(incomplete.error().message.find("repair.txt") != std::string::npos);
    CHECK_FALSE(PromptTemplates::findDir((dir / "missing").string()));
}

TEST_CASE("without an override the templates are found")
{
    const auto dir = PromptTemplates::findDir();
    REQUIRE_MESSAGE(dir, (dir ? "" : dir.error().message));
    CHECK(PromptTemplates::load(*dir));
}
