#include "core/eval/baselinechild.h"

#include "core/domain/domainjson.h"
#include "core/eval/workerprocess.h"
#include "core/util/clock.h"

#include <algorithm>
#include <cctype>

namespace kx {
namespace {

using Clock = WorkerProcess::Clock;

std::string lastLines(std::string text, std::size_t limit = 1500)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.pop_back();
    return text.size() > limit ? "..." + text.substr(text.size() - limit) : text;
}

} // namespace

BaselineMeasurement runBaselineChild(const InductorBaselineSettings &settings, const std::string &requestJson,
                                     int device, double timeoutMs)
{
    BaselineMeasurement failed;
    failed.kind = BaselineKind::Inductor;
    failed.method = settings.method;
    failed.details = settings.details;
    failed.createdAtMs = nowMs();
    const auto fail = [&](std::string why) {
        failed.error = std::move(why);
        return failed;
    };
    if (settings.command.empty())
        return fail(settings.unavailable.empty() ? "no Inductor baseline was prepared" : settings.unavailable);

    const std::string who = "the Inductor baseline (" + settings.method + ")";
    const auto deadline =
        Clock::now()
        + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double, std::milli>(timeoutMs));
    auto argv = settings.command;
    argv.push_back("--device");
    argv.push_back(std::to_string(device));
    WorkerProcess child;
    if (Status started = child.start(argv); !started)
        return fail(who + " could not be started: " + started.error().message);
    (void)child.write(requestJson, deadline);
    child.closeStdin();

    std::string line;
    std::string last;
    for (;;) {
        const auto status = child.readLine(line, deadline);
        if (status == WorkerProcess::ReadStatus::Line) {
            if (line.find_first_not_of(" \t\r") != std::string::npos)
                last = line;
            continue;
        }
        if (status == WorkerProcess::ReadStatus::Closed)
            break;
        child.kill();
        if (status == WorkerProcess::ReadStatus::Timeout)
            return fail(who + " did not finish within " + std::to_string(int(timeoutMs / 1000))
                        + " s (it was stopped)");
        return fail(who + " wrote a line that is too long");
    }
    const ProcessExit exit = child.waitForExit(deadline);
    const std::string stderrText = lastLines(child.stderrTail());
    const auto withStderr = [&](std::string message) {
        return stderrText.empty() ? message : message + "; the end of its stderr:\n" + stderrText;
    };
    if (exit.signaled)
        return fail(withStderr(who + " crashed (" + exit.toString() + ")"));

    const auto j = nlohmann::json::parse(last, nullptr, false);
    if (!j.is_object())
        return fail(withStderr(who + " wrote no result (" + exit.toString() + ")"));
    if (j.contains("ok") && !j.value("ok", false)) {
        const std::string error = j.value("error", std::string("failed"));
        return fail(who + ": " + error);
    }
    try {
        BaselineMeasurement measurement = j.get<BaselineMeasurement>();
        measurement.kind = BaselineKind::Inductor;
        if (measurement.method.empty())
            measurement.method = settings.method;
        if (measurement.createdAtMs == 0)
            measurement.createdAtMs = nowMs();
        if (measurement.timing.runs == 0)
            measurement.timing = summarize(measurement.samplesMs);
        if (measurement.timing.wallMedianMs == 0)
            measurement.timing.wallMedianMs = summarize(measurement.wallSamplesMs).medianMs;
        // The package's own facts (build time, file) and the child's (compile time, Python's eager time) together.
        if (!settings.details.empty()) {
            auto merged = nlohmann::json::parse(settings.details, nullptr, false);
            const auto own =
                nlohmann::json::parse(measurement.details.empty() ? "{}" : measurement.details, nullptr, false);
            if (merged.is_object() && own.is_object()) {
                merged.update(own);
                measurement.details = merged.dump();
            }
        }
        if (!exit.success() && measurement.error.empty())
            measurement.error = withStderr(who + " ended with " + exit.toString());
        return measurement;
    } catch (const std::exception &error) {
        return fail(who + " wrote an unreadable result: " + error.what());
    }
}

} // namespace kx
