#pragma once

#include <QString>
#include <QStringList>

#include <vector>

namespace kx::ui {

/// A run of changed characters within one line, in code points (not UTF-16 units, not bytes).
struct DiffRange
{
    int start = 0;
    int length = 0;

    bool operator==(const DiffRange &) const = default;
};

/// One row of a side-by-side diff. A missing side (-1) is shown as an empty filler line.
struct DiffRow
{
    enum class Kind { Equal, Removed, Added, Changed };
    Kind kind = Kind::Equal;
    int leftLine = -1;                 ///< 0-based line of the left text, or -1.
    int rightLine = -1;                ///< 0-based line of the right text, or -1.
    std::vector<DiffRange> leftRanges; ///< Changed characters (Changed rows only).
    std::vector<DiffRange> rightRanges;
};

/// Consecutive rows that differ: what next/previous change jumps between.
struct DiffHunk
{
    int firstRow = 0;
    int rowCount = 0;
};

struct TextDiff
{
    QStringList leftLines;
    QStringList rightLines;
    std::vector<DiffRow> rows;
    std::vector<DiffHunk> hunks;
    int removed = 0; ///< Rows only on the left.
    int added = 0;   ///< Rows only on the right.
    int changed = 0; ///< Rows on both sides with different text.

    bool isIdentical() const { return hunks.empty(); }
};

/**
 * Aligns two texts line by line and marks the changed characters of changed lines, with dtl's
 * O(ND) algorithm for both levels. Within a block of differing lines, removed and added lines are
 * paired in order as changed lines; what is left over stays removed or added.
 */
class DiffEngine
{
public:
    static TextDiff diff(const QString &left, const QString &right);
    /// The lines of a text as the diff sees them: split at '\n', '\r' dropped, no empty last line.
    static QStringList splitLines(const QString &text);
    /// Character ranges that differ between two lines (left ranges, right ranges).
    static std::pair<std::vector<DiffRange>, std::vector<DiffRange>> diffLine(const QString &left,
                                                                              const QString &right);
};

} // namespace kx::ui
