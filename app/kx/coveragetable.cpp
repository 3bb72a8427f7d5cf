#include "coveragetable.h"

#include "format.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace kx::cli {
namespace {

constexpr const char *kCsvHeader = "file,op,imported,recipe,translated,searched,verified,precision,eager_ms,"
                                   "inductor_ms,best_ms,speedup,speedup_inductor,note";
// Written before the Inductor baseline existed: still read by --resume.
constexpr const char *kOldCsvHeader = "file,op,imported,recipe,translated,searched,verified,speedup,note";

std::string csvField(const std::string &text)
{
    if (text.find_first_of(",\"\n") == std::string::npos)
        return text;
    std::string quoted = "\"";
    for (const char c : text)
        quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

std::string yesNo(bool value)
{
    return value ? "yes" : "no";
}

std::string number(double value)
{
    return value > 0 ? std::to_string(value) : std::string();
}

double parsed(const std::string &text)
{
    return text.empty() ? 0 : std::strtod(text.c_str(), nullptr);
}

// Splits one line of the CSV: fields quoted where they hold a comma or a quote.
std::vector<std::string> csvFields(const std::string &line)
{
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"')
            fields.back() += line[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            fields.emplace_back();
        else
            fields.back() += c;
    }
    return fields;
}

double geometricMean(const std::vector<double> &values)
{
    double logs = 0;
    for (const double value : values)
        logs += std::log(value);
    return values.empty() ? 0 : std::exp(logs / double(values.size()));
}

std::string fixed2(double value)
{
    std::ostringstream text;
    text << std::fixed << std::setprecision(2) << value;
    return text.str();
}

} // namespace

std::string unverifiedNote(const std::vector<Evaluation> &evaluations, const std::string &candidateId)
{
    if (evaluations.empty())
        return "not evaluated";
    std::vector<std::string> kinds;
    for (const auto &evaluation : evaluations)
        for (const auto &flag : evaluation.flags)
            if (std::find(kinds.begin(), kinds.end(), flag.kind) == kinds.end())
                kinds.push_back(flag.kind);
    const bool correct = std::any_of(evaluations.begin(), evaluations.end(), [](const Evaluation &evaluation) {
        return evaluation.status == EvalStatus::Correct;
    });
    if (correct && !kinds.empty()) {
        std::string list;
        for (const auto &kind : kinds)
            list += (list.empty() ? "" : ", ") + kind;
        return "correct but flagged " + list + " (kx archive show " + candidateId.substr(0, 12) + ")";
    }
    const auto &last = evaluations.back();
    return std::string(toString(last.status)) + ": " + last.message;
}

void writeCoverageMarkdown(std::ostream &out, const std::vector<CoverageRow> &rows, bool gpu)
{
    out << "| file | op | imported | recipe | translated |"
        << (gpu ? " verified | precision | eager ms | Inductor ms | best ms | x eager | x Inductor |" : "")
        << " note |\n|---|---|---|---|---|" << (gpu ? "---|---|---:|---:|---:|---:|---:|" : "") << "---|\n";
    for (const auto &row : rows) {
        out << "| " << row.file << " | " << row.op << " | " << yesNo(row.imported) << " | " << row.family << " | "
            << yesNo(row.translated) << " |";
        if (gpu) {
            const auto ms = [](double value) { return value > 0 ? formatMs(value) : std::string("-"); };
            out << ' ' << (row.searched ? yesNo(row.verified) : "-") << " | " << (row.searched ? row.precision : "-")
                << " | " << ms(row.eagerMs) << " | " << ms(row.inductorMs) << " | "
                << (row.verified ? ms(row.bestMs) : "-") << " | " << (row.verified ? formatSpeedup(row.speedup) : "-")
                << " | " << (row.verified && row.inductorSpeedup > 0 ? formatSpeedup(row.inductorSpeedup) : "-")
                << " |";
        }
        out << ' ' << singleLine(row.note) << " |\n";
    }
    const auto count = [&](auto predicate) { return std::count_if(rows.begin(), rows.end(), predicate); };
    const auto share = [&](std::ptrdiff_t n) {
        return " (" + std::to_string(int(100.0 * n / rows.size() + 0.5)) + "%)";
    };
    const auto translated = count([](const CoverageRow &row) { return row.translated; });
    out << "\n"
        << rows.size() << " files: " << count([](const CoverageRow &row) { return row.imported; }) << " imported, "
        << translated << " translated" << share(translated);
    if (gpu) {
        const auto verified = count([](const CoverageRow &row) { return row.verified; });
        const auto fasterThanEager = count([](const CoverageRow &row) { return row.verified && row.speedup > 1.0; });
        const auto fasterThanInductor =
            count([](const CoverageRow &row) { return row.verified && row.inductorSpeedup > 1.0; });
        const auto measuredInductor = count([](const CoverageRow &row) { return row.inductorMs > 0; });
        out << ", " << verified << " verified" << share(verified) << "\n\n";
        // KernelBench's fast_1: the share of all problems with a correct kernel faster than the baseline.
        out << "- fast_1 vs eager = " << fixed2(double(fasterThanEager) / rows.size()) << " (" << fasterThanEager
            << " of " << rows.size() << " correct and faster than eager PyTorch)\n";
        out << "- fast_1 vs Inductor = " << fixed2(double(fasterThanInductor) / rows.size()) << " ("
            << fasterThanInductor << " of " << rows.size() << " correct and faster than torch.compile; "
            << measuredInductor << " problems have an Inductor time)\n";
        std::vector<double> overEager;
        std::vector<double> overInductor;
        for (const auto &row : rows) {
            if (row.verified && row.speedup > 0)
                overEager.push_back(row.speedup);
            if (row.verified && row.inductorSpeedup > 0)
                overInductor.push_back(row.inductorSpeedup);
        }
        out << "- geometric mean speedup vs eager = " << fixed2(geometricMean(overEager)) << "x over the "
            << overEager.size() << " verified problems; vs Inductor = " << fixed2(geometricMean(overInductor))
            << "x over the " << overInductor.size() << " verified problems with an Inductor time\n";
        return;
    }
    out << "\n";
}

void writeCoverageCsv(std::ostream &out, const std::vector<CoverageRow> &rows)
{
    out << kCsvHeader << '\n';
    for (const auto &row : rows)
        out << csvField(row.file) << ',' << csvField(row.op) << ',' << yesNo(row.imported) << ','
            << csvField(row.family) << ',' << yesNo(row.translated) << ',' << yesNo(row.searched) << ','
            << yesNo(row.verified) << ',' << row.precision << ',' << number(row.eagerMs) << ','
            << number(row.inductorMs) << ',' << (row.verified ? number(row.bestMs) : std::string()) << ','
            << (row.verified ? number(row.speedup) : std::string()) << ','
            << (row.verified ? number(row.inductorSpeedup) : std::string()) << ',' << csvField(singleLine(row.note))
            << '\n';
}

std::map<std::string, CoverageRow> readCoverageCsv(const std::string &path)
{
    std::map<std::string, CoverageRow> rows;
    std::ifstream in(path);
    std::string line;
    // A file saved by a spreadsheet ends its lines in CR LF.
    const auto nextLine = [&] {
        if (!std::getline(in, line))
            return false;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        return true;
    };
    if (!nextLine() || (line != kCsvHeader && line != kOldCsvHeader))
        return rows;
    const bool old = line == kOldCsvHeader;
    while (nextLine()) {
        const auto fields = csvFields(line);
        if (fields.size() != (old ? 9u : 14u))
            continue;
        CoverageRow row;
        row.file = fields[0];
        row.op = fields[1];
        row.imported = fields[2] == "yes";
        row.family = fields[3];
        row.translated = fields[4] == "yes";
        row.searched = fields[5] == "yes";
        row.verified = fields[6] == "yes";
        if (old) {
            row.speedup = row.verified ? parsed(fields[7]) : 0;
            row.note = fields[8];
        } else {
            row.precision = fields[7];
            row.eagerMs = parsed(fields[8]);
            row.inductorMs = parsed(fields[9]);
            row.bestMs = parsed(fields[10]);
            row.speedup = row.verified ? parsed(fields[11]) : 0;
            row.inductorSpeedup = row.verified ? parsed(fields[12]) : 0;
            row.note = fields[13];
        }
        rows[row.file] = row;
    }
    return rows;
}

} // namespace kx::cli
