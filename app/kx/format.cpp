#include "format.h"

#include <algorithm>
#include <cstdio>

namespace kx::cli {

std::string formatSpeedup(double speedup)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.2fx", speedup);
    return text;
}

std::string formatMs(double ms)
{
    char text[32];
    std::snprintf(text, sizeof text, ms < 1 ? "%.4f ms" : "%.3f ms", ms);
    return text;
}

std::string shortId(const std::string &id)
{
    return id.substr(0, 12);
}

std::string singleLine(std::string text)
{
    std::replace(text.begin(), text.end(), '\n', ' ');
    std::replace(text.begin(), text.end(), '|', '/');
    return text;
}

TextTable::TextTable(std::vector<std::string> header)
    : m_header(std::move(header))
{}

void TextTable::addRow(std::vector<std::string> cells)
{
    cells.resize(m_header.size());
    m_rows.push_back({std::move(cells), {}});
}

void TextTable::addNote(std::string line)
{
    if (!m_rows.empty())
        m_rows.back().notes.push_back(std::move(line));
}

void TextTable::print(std::ostream &out) const
{
    constexpr std::size_t kGap = 2;
    std::vector<std::size_t> widths(m_header.size());
    for (std::size_t i = 0; i < m_header.size(); ++i) {
        widths[i] = m_header[i].size();
        for (const auto &row : m_rows)
            widths[i] = std::max(widths[i], row.cells[i].size());
    }
    const auto line = [&](const std::vector<std::string> &cells) {
        for (std::size_t i = 0; i < cells.size(); ++i)
            out << cells[i] << (i + 1 < cells.size() ? std::string(widths[i] - cells[i].size() + kGap, ' ') : "\n");
    };
    line(m_header);
    for (const auto &row : m_rows) {
        line(row.cells);
        for (const auto &note : row.notes)
            out << std::string(widths.empty() ? 0 : widths[0] + kGap, ' ') << note << '\n';
    }
}

} // namespace kx::cli
