#include "ui/diff/diffengine.h"

#include <dtl/dtl.hpp>

#include <string>

namespace kx::ui {

namespace {

// Past this many elements dtl's exact algorithm gets slow; onHuge() trades optimality for speed.
constexpr std::size_t kHugeSequence = 20000;

void appendRange(std::vector<DiffRange> &ranges, int position)
{
    if (!ranges.empty() && ranges.back().start + ranges.back().length == position)
        ++ranges.back().length;
    else
        ranges.push_back({position, 1});
}

bool isIdentifierChar(uint c)
{
    return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

// A line as the character diff compares it: one token per code point, except that a number (a digit not
// inside an identifier, with what follows it: 0x1F, 1.5f, 128u) is one token, so 128 -> 256 is not shown as
// changes inside the number.
struct Tokens
{
    std::vector<std::u32string> text;
    std::vector<int> start; ///< Code point index of each token.
};

Tokens tokenize(const QList<uint> &line)
{
    Tokens tokens;
    for (int i = 0; i < line.size();) {
        int end = i + 1;
        const bool number = line[i] >= '0' && line[i] <= '9' && (i == 0 || !isIdentifierChar(line[i - 1]));
        if (number)
            while (end < line.size() && (isIdentifierChar(line[end]) || line[end] == '.'))
                ++end;
        tokens.text.emplace_back(line.begin() + i, line.begin() + end);
        tokens.start.push_back(i);
        i = end;
    }
    return tokens;
}

void appendToken(std::vector<DiffRange> &ranges, const Tokens &tokens, long long index)
{
    const auto token = std::size_t(index);
    for (std::size_t c = 0; c < tokens.text[token].size(); ++c)
        appendRange(ranges, tokens.start[token] + int(c));
}

} // namespace

QStringList DiffEngine::splitLines(const QString &text)
{
    QString normalized = text;
    normalized.remove(QLatin1Char('\r'));
    QStringList lines = normalized.split(QLatin1Char('\n'));
    if (!lines.isEmpty() && lines.last().isEmpty())
        lines.removeLast();
    return lines;
}

std::pair<std::vector<DiffRange>, std::vector<DiffRange>> DiffEngine::diffLine(const QString &left,
                                                                               const QString &right)
{
    const Tokens a = tokenize(left.toUcs4());
    const Tokens b = tokenize(right.toUcs4());
    dtl::Diff<std::u32string, std::vector<std::u32string>> diff(a.text, b.text);
    if (a.text.size() + b.text.size() > kHugeSequence)
        diff.onHuge();
    diff.compose();

    std::pair<std::vector<DiffRange>, std::vector<DiffRange>> ranges;
    for (const auto &[element, info] : diff.getSes().getSequence()) {
        if (info.type == dtl::SES_DELETE)
            appendToken(ranges.first, a, info.beforeIdx - 1);
        else if (info.type == dtl::SES_ADD)
            appendToken(ranges.second, b, info.afterIdx - 1);
    }
    return ranges;
}

TextDiff DiffEngine::diff(const QString &left, const QString &right)
{
    TextDiff result;
    result.leftLines = splitLines(left);
    result.rightLines = splitLines(right);

    std::vector<std::string> a, b;
    a.reserve(std::size_t(result.leftLines.size()));
    b.reserve(std::size_t(result.rightLines.size()));
    for (const QString &line : std::as_const(result.leftLines))
        a.push_back(line.toStdString());
    for (const QString &line : std::as_const(result.rightLines))
        b.push_back(line.toStdString());
    dtl::Diff<std::string, std::vector<std::string>> diff(a, b);
    if (a.size() + b.size() > kHugeSequence)
        diff.onHuge();
    diff.compose();

    std::vector<int> removedLines, addedLines;
    auto flushBlock = [&] {
        if (removedLines.empty() && addedLines.empty())
            return;
        DiffHunk hunk{int(result.rows.size()), 0};
        const std::size_t paired = std::min(removedLines.size(), addedLines.size());
        for (std::size_t i = 0; i < std::max(removedLines.size(), addedLines.size()); ++i) {
            DiffRow row;
            if (i < paired) {
                row.kind = DiffRow::Kind::Changed;
                row.leftLine = removedLines[i];
                row.rightLine = addedLines[i];
                std::tie(row.leftRanges, row.rightRanges) =
                    diffLine(result.leftLines.at(row.leftLine), result.rightLines.at(row.rightLine));
                ++result.changed;
            } else if (i < removedLines.size()) {
                row.kind = DiffRow::Kind::Removed;
                row.leftLine = removedLines[i];
                ++result.removed;
            } else {
                row.kind = DiffRow::Kind::Added;
                row.rightLine = addedLines[i];
                ++result.added;
            }
            result.rows.push_back(std::move(row));
        }
        hunk.rowCount = int(result.rows.size()) - hunk.firstRow;
        result.hunks.push_back(hunk);
        removedLines.clear();
        addedLines.clear();
    };

    for (const auto &[element, info] : diff.getSes().getSequence()) {
        if (info.type == dtl::SES_DELETE) {
            removedLines.push_back(int(info.beforeIdx - 1));
        } else if (info.type == dtl::SES_ADD) {
            addedLines.push_back(int(info.afterIdx - 1));
        } else {
            flushBlock();
            DiffRow row;
            row.leftLine = int(info.beforeIdx - 1);
            row.rightLine = int(info.afterIdx - 1);
            result.rows.push_back(std::move(row));
        }
    }
    flushBlock();
    return result;
}

} // namespace kx::ui
