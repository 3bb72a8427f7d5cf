#include "core/plan/compilelog.h"

#include <algorithm>
#include <cctype>
#include <optional>
#include <vector>

namespace kx {
namespace {

bool startsWith(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

// The file of a diagnostic's first line, "candidate.cu(12): error: ..."; nothing for any other line.
std::optional<std::string_view> diagnosticFile(std::string_view line)
{
    for (auto close = line.find("): "); close != std::string_view::npos; close = line.find("): ", close + 1)) {
        std::size_t digits = close;
        while (digits > 0 && std::isdigit(static_cast<unsigned char>(line[digits - 1])))
            --digits;
        if (digits == close || digits < 2 || line[digits - 1] != '(')
            continue;
        const std::string_view level = line.substr(close + 3);
        for (std::string_view known : {"error", "warning", "remark", "note", "catastrophic error", "fatal error"})
            if (startsWith(level, known))
                return line.substr(0, digits - 1);
    }
    return std::nullopt;
}

// Whole lines of text, at most budget bytes of them from the front.
std::string firstLines(const std::string &text, std::size_t budget)
{
    if (text.size() <= budget)
        return text;
    const auto end = text.rfind('\n', budget == 0 ? 0 : budget - 1);
    return end == std::string::npos ? std::string() : text.substr(0, end + 1);
}

} // namespace

std::string scrubCompileLog(std::string_view log, const std::function<bool(std::string_view file)> &isKnownFile)
{
    std::string diagnostics;
    std::string ptxas; // ptxas' report comes last in NVRTC's log; it is kept when the log is cut.
    std::size_t leftOut = 0;
    bool inKept = false; // The indented lines after a diagnostic (source line, caret, notes) go with it.
    const auto keep = [&diagnostics](std::string_view line) { (diagnostics += line) += '\n'; };
    for (std::size_t begin = 0; begin < log.size();) {
        auto end = log.find('\n', begin);
        if (end == std::string_view::npos)
            end = log.size();
        std::string_view line = log.substr(begin, end - begin);
        begin = end + 1;
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);

        if (line.find_first_not_of(" \t") == std::string_view::npos) {
            inKept = false;
            if (!diagnostics.empty() && !diagnostics.ends_with("\n\n"))
                diagnostics += '\n';
        } else if (const auto file = diagnosticFile(line)) {
            inKept = isKnownFile(*file);
            if (inKept)
                keep(line);
            else
                ++leftOut;
        } else if (line.front() == ' ' || line.front() == '\t') {
            if (inKept)
                keep(line);
            else
                ++leftOut;
        } else if (startsWith(line, "ptxas")) {
            inKept = false;
            (ptxas += line) += '\n';
        } else if (startsWith(line, "At end of source: ")) {
            inKept = true;
            keep(line);
        } else if (startsWith(line, "nvrtc: ") || line == "Compilation terminated."
                   || startsWith(line, "Remark: The warnings can be suppressed")
                   || line.find(" detected in the compilation of \"candidate.cu\"") != std::string_view::npos) {
            inKept = false;
            keep(line);
        } else {
            inKept = false;
            ++leftOut;
        }
    }
    while (diagnostics.ends_with("\n\n"))
        diagnostics.pop_back();
    if (leftOut > 0)
        diagnostics += "[" + std::to_string(leftOut) + (leftOut == 1 ? " line" : " lines")
                       + " of the log left out: not a diagnostic of the candidate or of an allowed CUDA header]\n";

    const std::size_t total = diagnostics.size() + ptxas.size();
    if (total > kMaxCompileLogBytes) {
        const std::string report = firstLines(ptxas, kMaxCompileLogBytes / 2);
        std::string head = firstLines(diagnostics, kMaxCompileLogBytes - report.size());
        const std::size_t cut = total - head.size() - report.size();
        head += "[compile log cut: " + std::to_string(cut) + " of " + std::to_string(total)
                + " bytes left out (the log is kept to " + std::to_string(kMaxCompileLogBytes / 1024) + " KiB)]\n";
        diagnostics = std::move(head);
        ptxas = report;
    }
    std::string result = diagnostics + ptxas;
    while (!result.empty() && result.back() == '\n')
        result.pop_back();
    return result;
}

std::string scrubCompileLog(std::string_view log)
{
    return scrubCompileLog(log, [](std::string_view file) { return file == "candidate.cu"; });
}

} // namespace kx
