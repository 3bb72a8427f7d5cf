#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace kx::cli {

/// "1.42x"
std::string formatSpeedup(double speedup);
/// "0.1234 ms" with sensible precision.
std::string formatMs(double ms);
/// The first 12 characters of a candidate id (what `kx archive show` accepts).
std::string shortId(const std::string &id);
/// Text for one table cell: line breaks become spaces, Markdown's '|' becomes '/'.
std::string singleLine(std::string text);

/// A plain-text table whose columns are as wide as their widest cell, two spaces apart (the last unpadded), so
/// long op names never run into the next column.
class TextTable
{
public:
    explicit TextTable(std::vector<std::string> header);
    void addRow(std::vector<std::string> cells);
    /// A line under the last row, indented to its second column.
    void addNote(std::string line);
    void print(std::ostream &out) const;

private:
    struct Row
    {
        std::vector<std::string> cells;
        std::vector<std::string> notes;
    };
    std::vector<std::string> m_header;
    std::vector<Row> m_rows;
};

} // namespace kx::cli
