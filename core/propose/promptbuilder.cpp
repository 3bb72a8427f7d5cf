#include "core/propose/promptbuilder.h"

#include "core/plan/compilelog.h"
#include "core/plan/includecheck.h"
#include "core/util/executablepath.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace kx {
namespace {

namespace fs = std::filesystem;

std::string formatNumber(double value, const char *format)
{
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

std::string shapesText(const Op &op)
{
    std::ostringstream out;
    for (std::size_t i = 0; i < op.shapeSets.size(); ++i) {
        out << (i == 0 ? "default: " : "also verified: ");
        bool first = true;
        for (const auto &[symbol, size] : op.shapeSets[i]) {
            out << (first ? "" : ", ") << symbol << "=" << size;
            first = false;
        }
        out << '\n';
    }
    return out.str();
}

std::string tensorsText(const std::vector<TensorSpec> &tensors)
{
    std::ostringstream out;
    for (const auto &tensor : tensors) {
        out << "- " << tensor.name << ": " << tensor.dtype << " [";
        for (std::size_t i = 0; i < tensor.shape.size(); ++i)
            out << (i ? ", " : "") << tensor.shape[i];
        out << "]\n";
    }
    return out.str();
}

std::string policyText(const OpPolicy &policy)
{
    std::ostringstream out;
    out << "outputs must match the reference within atol=" << policy.atol << ", rtol=" << policy.rtol << ".\n";
    if (policy.allowLibrarySteps && !policy.allowedLibraryOps.empty()) {
        out << "library steps allowed for:";
        for (const auto &name : policy.allowedLibraryOps)
            out << ' ' << name;
        out << '\n';
    } else {
        out << "library steps are not allowed: every step is one of your kernels.\n";
    }
    return out.str();
}

std::string resultText(const ScoredCandidate &scored)
{
    if (!scored.evaluation)
        return "not evaluated yet";
    const auto &e = *scored.evaluation;
    std::ostringstream out;
    out << "status " << toString(e.status);
    if (e.status == EvalStatus::Correct)
        out << ", " << formatNumber(e.timing.medianMs, "%.4f") << " ms (PyTorch eager "
            << formatNumber(e.baseline.medianMs, "%.4f") << " ms), speedup " << formatNumber(e.speedup, "%.2f") << "x";
    out << "\ncompile: " << e.compile.registers << " registers/thread, " << e.compile.spillBytes
        << " bytes local memory/thread, " << e.compile.staticSharedBytes << " bytes static shared memory";
    if (!e.correctness.failure.empty())
        out << "\nverification failure: " << e.correctness.failure;
    if (e.status != EvalStatus::Correct && !e.message.empty())
        out << "\nmessage: " << e.message;
    // Scrubbed again: an archive written before logs were scrubbed may hold what an include read.
    if (e.status == EvalStatus::CompileError && !e.compile.log.empty())
        out << "\ncompiler log:\n" << scrubCompileLog(e.compile.log).substr(0, 4000);
    for (const auto &flag : e.flags)
        out << "\nflag " << flag.kind << ": " << flag.evidence;
    return out.str();
}

std::string candidateText(const ScoredCandidate &scored, const std::string &title)
{
    std::ostringstream out;
    out << "### " << title << " (" << scored.candidate.id.substr(0, 12) << ")\n";
    if (!scored.candidate.description.empty())
        out << "description: " << scored.candidate.description << '\n';
    out << "result: " << resultText(scored) << "\n\n```cuda\n" << scored.candidate.source;
    if (scored.candidate.source.empty() || scored.candidate.source.back() != '\n')
        out << '\n';
    out << "```\n\n```json\n" << scored.candidate.launchPlan << "\n```\n";
    return out.str();
}

// CUDA-L1's contrastive prompt: earlier variants with their speeds, fastest first, the fastest in full.
std::string contrastiveText(const ProposalRequest &request, int limit)
{
    std::vector<const ScoredCandidate *> variants;
    std::set<std::string> seen;
    for (const auto *list : {&request.parents, &request.steppingStones})
        for (const auto &scored : *list)
            if (scored.evaluation && seen.insert(scored.candidate.id).second)
                variants.push_back(&scored);
    if (variants.empty())
        return "(no earlier variants have been measured yet)\n";
    std::stable_sort(variants.begin(), variants.end(),
                     [](const auto *a, const auto *b) { return a->speedup() > b->speedup(); });
    if (variants.size() > std::size_t(std::max(1, limit)))
        variants.resize(std::size_t(std::max(1, limit)));
    std::ostringstream out;
    out << "| rank | variant | status | runtime (ms) | speedup | registers | what it is |\n";
    out << "|---|---|---|---|---|---|---|\n";
    for (std::size_t i = 0; i < variants.size(); ++i) {
        const auto &v = *variants[i];
        out << "| " << i + 1 << " | " << v.candidate.id.substr(0, 12) << " | " << toString(v.evaluation->status)
            << " | " << (v.isCorrect() ? formatNumber(v.evaluation->timing.medianMs, "%.4f") : std::string("-"))
            << " | " << (v.isCorrect() ? formatNumber(v.speedup(), "%.2f") + "x" : std::string("-")) << " | "
            << v.evaluation->compile.registers << " | " << v.candidate.description << " |\n";
    }
    if (variants.front()->isCorrect())
        out << '\n' << candidateText(*variants.front(), "the fastest variant so far");
    return out.str();
}

std::string steppingStonesText(const ProposalRequest &request)
{
    if (request.steppingStones.empty())
        return "(none)\n";
    std::ostringstream out;
    for (const auto &stone : request.steppingStones)
        out << candidateText(stone, "kernel for " + stone.candidate.opName + ", "
                                        + formatNumber(stone.speedup(), "%.2f") + "x")
            << '\n';
    return out.str();
}

std::string templateNameFor(ProposalKind kind)
{
    switch (kind) {
    case ProposalKind::Translate: return "translate";
    case ProposalKind::Mutate: return "mutate";
    case ProposalKind::Crossover: return "crossover";
    case ProposalKind::Repair: return "repair";
    }
    return "mutate";
}

} // namespace

const std::vector<std::string> &PromptTemplates::requiredNames()
{
    static const std::vector<std::string> names{"system", "format", "translate", "mutate", "crossover", "repair"};
    return names;
}

Expected<PromptTemplates> PromptTemplates::load(const std::string &dir)
{
    PromptTemplates templates;
    for (const auto &name : requiredNames()) {
        const fs::path path = fs::path(dir) / (name + ".txt");
        std::ifstream file(path, std::ios::binary);
        if (!file)
            return Error{"prompt template " + path.string() + " is missing or unreadable"};
        std::ostringstream text;
        text << file.rdbuf();
        templates.texts[name] = text.str();
    }
    return templates;
}

Expected<std::string> PromptTemplates::findDir(const std::string &overrideDir)
{
    if (!overrideDir.empty()) {
        std::error_code error;
        if (!fs::is_directory(overrideDir, error))
            return Error{"prompt folder " + overrideDir + " does not exist"};
        return overrideDir;
    }
    std::vector<std::string> candidates;
    if (const auto dir = executableDir(); !dir.empty())
        candidates.push_back(
            (fs::path(dir) / ".." / "share" / "kernel-explorer" / "prompts").lexically_normal().string());
#ifdef KX_SOURCE_PROMPTS_DIR
    candidates.push_back(KX_SOURCE_PROMPTS_DIR);
#endif
    for (const auto &dir : candidates) {
        std::error_code error;
        if (fs::exists(fs::path(dir) / "system.txt", error))
            return dir;
    }
    return Error{"no prompt templates found (looked in " + (candidates.empty() ? std::string("-") : candidates.front())
                 + "); give a folder with --prompts"};
}

std::string Prompt::combined() const
{
    return "### system\n" + system + "\n### user\n" + user;
}

PromptBuilder::PromptBuilder(PromptTemplates templates, int contrastiveVariants)
    : m_templates(std::move(templates))
    , m_contrastiveVariants(contrastiveVariants)
{}

Expected<std::string> PromptBuilder::render(const std::string &text, const std::map<std::string, std::string> &values,
                                            const std::string &templateName)
{
    std::string result;
    std::size_t position = 0;
    while (true) {
        const auto open = text.find("{{", position);
        if (open == std::string::npos) {
            result += text.substr(position);
            return result;
        }
        const auto close = text.find("}}", open + 2);
        if (close == std::string::npos)
            return Error{templateName + ".txt: '{{' without a closing '}}'"};
        result += text.substr(position, open - position);
        std::string name = text.substr(open + 2, close - open - 2);
        name.erase(0, name.find_first_not_of(' '));
        name.erase(name.find_last_not_of(' ') + 1);
        const auto value = values.find(name);
        if (value == values.end())
            return Error{templateName + ".txt: unknown placeholder {{" + name + "}}"};
        result += value->second;
        position = close + 2;
    }
}

Expected<Prompt> PromptBuilder::build(const ProposalRequest &request) const
{
    const auto &op = request.op;
    std::map<std::string, std::string> values{
        {"op_name", op.name},
        {"op_description", op.description},
        {"reference_source", op.referenceSource},
        {"inputs", tensorsText(op.inputs)},
        {"outputs", tensorsText(op.outputs)},
        {"shapes", shapesText(op)},
        {"policy", policyText(op.policy)},
        {"contrastive", contrastiveText(request, m_contrastiveVariants)},
        {"stepping_stones", steppingStonesText(request)},
        {"parent", request.parents.empty() ? std::string() : candidateText(request.parents[0], "parent")},
        {"parent_result", request.parents.empty() ? std::string() : resultText(request.parents[0])},
        {"parent_a", request.parents.empty() ? std::string() : candidateText(request.parents[0], "parent A")},
        {"parent_b", request.parents.size() < 2 ? std::string() : candidateText(request.parents[1], "parent B")},
        {"generation", std::to_string(request.generation)},
        {"allowed_headers", allowedCudaHeadersText()},
    };
    const auto format = render(m_templates.texts.at("format"), values, "format");
    if (!format)
        return format.error();
    values["format_rules"] = *format;
    const auto system = render(m_templates.texts.at("system"), values, "system");
    if (!system)
        return system.error();
    const std::string name = templateNameFor(request.kind);
    if ((request.kind == ProposalKind::Mutate || request.kind == ProposalKind::Repair) && request.parents.empty())
        return Error{name + " needs a parent"};
    if (request.kind == ProposalKind::Crossover && request.parents.size() < 2)
        return Error{"crossover needs two parents"};
    const auto user = render(m_templates.texts.at(name), values, name);
    if (!user)
        return user.error();
    return Prompt{*system, *user};
}

} // namespace kx
