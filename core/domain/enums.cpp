// Text forms of the domain enums: the archive and the JSON formats store these words.
#include "core/domain/baseline.h"
#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"
#include "core/domain/op.h"
#include "core/domain/run.h"
#include "core/domain/verdict.h"

#include <array>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace kx {
namespace {

template <typename Enum, std::size_t N>
const char *nameOf(const std::array<std::pair<Enum, const char *>, N> &table, Enum value)
{
    for (const auto &[key, name] : table)
        if (key == value)
            return name;
    return "unknown";
}

template <typename Enum, std::size_t N>
Enum valueOf(const std::array<std::pair<Enum, const char *>, N> &table, const std::string &text, std::string_view what)
{
    for (const auto &[key, name] : table)
        if (text == name)
            return key;
    throw std::invalid_argument("unknown " + std::string(what) + " '" + text + "'");
}

constexpr std::array<std::pair<SourceKind, const char *>, 3> kSourceKinds{
    {{SourceKind::BuiltIn, "builtin"}, {SourceKind::KernelBench, "kernelbench"}, {SourceKind::Manual, "manual"}}};

constexpr std::array<std::pair<Origin, const char *>, 5> kOrigins{{{Origin::Translated, "translated"},
                                                                   {Origin::Mutated, "mutated"},
                                                                   {Origin::Crossover, "crossover"},
                                                                   {Origin::Manual, "manual"},
                                                                   {Origin::Imported, "imported"}}};

constexpr std::array<std::pair<EvalStatus, const char *>, 8> kStatuses{{{EvalStatus::Correct, "correct"},
                                                                        {EvalStatus::Incorrect, "incorrect"},
                                                                        {EvalStatus::CompileError, "compile-error"},
                                                                        {EvalStatus::PlanError, "plan-error"},
                                                                        {EvalStatus::LaunchError, "launch-error"},
                                                                        {EvalStatus::Fault, "fault"},
                                                                        {EvalStatus::Timeout, "timeout"},
                                                                        {EvalStatus::Crashed, "crashed"}}};

constexpr std::array<std::pair<RunState, const char *>, 6> kRunStates{{{RunState::Created, "created"},
                                                                       {RunState::Running, "running"},
                                                                       {RunState::Paused, "paused"},
                                                                       {RunState::Finished, "finished"},
                                                                       {RunState::Cancelled, "cancelled"},
                                                                       {RunState::Failed, "failed"}}};
constexpr std::array<std::pair<BaselineKind, const char *>, 2> kBaselineKinds{{
    {BaselineKind::Eager, "eager"},
    {BaselineKind::Inductor, "inductor"},
}};

} // namespace

const char *toString(SourceKind kind)
{
    return nameOf(kSourceKinds, kind);
}
SourceKind sourceKindFromString(const std::string &text)
{
    return valueOf(kSourceKinds, text, "source kind");
}
const char *toString(Origin origin)
{
    return nameOf(kOrigins, origin);
}
Origin originFromString(const std::string &text)
{
    return valueOf(kOrigins, text, "origin");
}
const char *toString(EvalStatus status)
{
    return nameOf(kStatuses, status);
}
EvalStatus evalStatusFromString(const std::string &text)
{
    return valueOf(kStatuses, text, "evaluation status");
}
const char *toString(RunState state)
{
    return nameOf(kRunStates, state);
}
RunState runStateFromString(const std::string &text)
{
    return valueOf(kRunStates, text, "run state");
}
const char *toString(BaselineKind kind)
{
    return nameOf(kBaselineKinds, kind);
}
BaselineKind baselineKindFromString(const std::string &text)
{
    return valueOf(kBaselineKinds, text, "baseline kind");
}

const std::vector<std::string> &verdictReasonCodes()
{
    static const std::vector<std::string> codes{
        "verified-speedup",  "incorrect",   "suspicious-timing", "exploits-harness",
        "reduced-precision", "not-general", "duplicate",         "other"};
    return codes;
}

std::string likelyRejectReason(const std::set<std::string> &flagKinds)
{
    const auto flagged = [&](const char *kind) { return flagKinds.count(kind) > 0; };
    if (flagged("impossible") || flagged("suspicious"))
        return "suspicious-timing";
    if (flagged("input-insensitive"))
        return "exploits-harness";
    if (flagged("reduced-precision"))
        return "reduced-precision";
    return "incorrect";
}

} // namespace kx
