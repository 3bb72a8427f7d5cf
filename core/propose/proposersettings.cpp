#include "core/propose/proposersettings.h"

namespace kx {

namespace {
constexpr struct
{
    ProposerKind kind;
    const char *text;
} kKinds[] = {{ProposerKind::Template, "template"},
              {ProposerKind::Llm, "llm"},
              {ProposerKind::Command, "command"},
              {ProposerKind::Mix, "mix"}};
} // namespace

const char *toString(ProposerKind kind)
{
    for (const auto &entry : kKinds)
        if (entry.kind == kind)
            return entry.text;
    return "template";
}

bool asksModel(const ProposerSettings &settings)
{
    return settings.kind == ProposerKind::Llm || (settings.kind == ProposerKind::Mix && !settings.llm.model.empty());
}

bool runsCommand(const ProposerSettings &settings)
{
    return settings.kind == ProposerKind::Command || (settings.kind == ProposerKind::Mix && settings.llm.model.empty());
}

std::optional<ProposerKind> proposerKindFromString(const std::string &text)
{
    for (const auto &entry : kKinds)
        if (text == entry.text)
            return entry.kind;
    return std::nullopt;
}

} // namespace kx
