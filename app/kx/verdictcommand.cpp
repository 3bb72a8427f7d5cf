// kx verdict ID --accept|--reject|--retract: a reviewer's judgement from the command line, as the Review page records
// it.
#include "commands.h"

#include "core/archive/archive.h"
#include "core/domain/verdict.h"
#include "core/util/clock.h"

#include <algorithm>
#include <iostream>

namespace kx::cli {
namespace {

struct VerdictOptions
{
    std::string archive;
    std::string id;
    bool accept = false;
    bool reject = false;
    bool retract = false;
    std::string reason;
    std::string note;
};

std::string reasonChoices()
{
    std::string text;
    for (const auto &code : verdictReasonCodes())
        text += (text.empty() ? "" : ", ") + code;
    return text;
}

int runVerdict(const VerdictOptions &options)
{
    if (int(options.accept) + int(options.reject) + int(options.retract) != 1) {
        std::cerr << "kx: give one of --accept, --reject or --retract\n";
        return Usage;
    }
    const auto &codes = verdictReasonCodes();
    if (!options.reason.empty() && std::find(codes.begin(), codes.end(), options.reason) == codes.end()) {
        std::cerr << "kx: unknown reason '" << options.reason << "' (choose from " << reasonChoices() << ")\n";
        return Usage;
    }
    auto archive = openArchiveOrReport(options.archive, ArchiveMode::ReadWrite);
    if (!archive)
        return BadInput;
    const auto id = resolveCandidateOrReport(*archive, options.id);
    if (!id)
        return Failure;
    auto tx = archive->begin();
    if (options.retract) {
        // The verdict in force is the newest one not retracted.
        const auto verdicts = archive->verdicts(*id);
        const auto current =
            std::find_if(verdicts.rbegin(), verdicts.rend(), [](const Verdict &v) { return !v.retracted; });
        if (current == verdicts.rend()) {
            std::cerr << "kx: " << id->substr(0, 12) << " has no verdict to retract\n";
            return Failure;
        }
        archive->retractVerdict(tx, current->id);
        tx.commit();
        std::cout << "retracted the verdict on " << id->substr(0, 12) << " ("
                  << (current->accepted ? "accepted" : "rejected") << ", " << current->reasonCode << ")\n";
        return Ok;
    }
    Verdict verdict;
    verdict.candidateId = *id;
    verdict.accepted = options.accept;
    verdict.reasonCode = !options.reason.empty() ? options.reason
                         : options.accept        ? "verified-speedup"
                                                 : likelyRejectReason(archive->flagKinds(*id));
    verdict.note = options.note;
    verdict.createdAtMs = nowMs();
    archive->addVerdict(tx, verdict);
    tx.commit();
    std::cout << (verdict.accepted ? "accepted " : "rejected ") << id->substr(0, 12) << " (" << verdict.reasonCode
              << ")\n";
    return Ok;
}

} // namespace

void addVerdictCommand(CLI::App &app, Action &action)
{
    auto options = std::make_shared<VerdictOptions>();
    auto *command = app.add_subcommand(
        "verdict", "Accept or reject a candidate, or retract its verdict, as the Review page does. Rejected candidates "
                   "are never the best; the newest verdict is the one in force.");
    addArchiveOption(*command, options->archive);
    command->add_option("id", options->id, "Candidate id or a unique prefix (at least 4 characters)")->required();
    command->add_flag("--accept", options->accept, "Accept it (reason verified-speedup unless --reason)");
    command->add_flag("--reject", options->reject,
                      "Reject it (reason from its flags unless --reason: suspicious-timing for impossible or "
                      "suspicious, exploits-harness for input-insensitive, reduced-precision, else incorrect)");
    command->add_flag("--retract", options->retract, "Retract the verdict in force (kept as history)");
    command->add_option("--reason", options->reason, "One of: " + reasonChoices());
    command->add_option("--note", options->note, "Why, in the reviewer's words");
    command->callback([&action, options] { action = [options] { return runVerdict(*options); }; });
}

} // namespace kx::cli
