#pragma once

#include "ui/diff/diffengine.h"

#include <QWidget>

class QsciLexer;

namespace kx::ui {

class CodeView;

/**
 * Two read-only code views side by side showing a TextDiff: rows aligned with empty filler lines,
 * line backgrounds for removed/added/changed lines, boxes around the changed characters, scrolling
 * kept in step, and next/previous change.
 */
class DiffPane : public QWidget
{
    Q_OBJECT

public:
    /// Takes ownership of both lexers (either may be null for plain text).
    DiffPane(QsciLexer *leftLexer, QsciLexer *rightLexer, QWidget *parent = nullptr);

    void setTexts(const QString &left, const QString &right);
    void clear();
    const TextDiff &diff() const { return m_diff; }

    int currentHunk() const { return m_currentHunk; } ///< -1 before the first jump.
    int hunkCount() const { return int(m_diff.hunks.size()); }
    /// Moves to the next/previous change; false at the end.
    bool nextChange();
    bool previousChange();
    void goToHunk(int index);

    CodeView *leftView() const { return m_left; }
    CodeView *rightView() const { return m_right; }

    enum class LineKind { Removed, Added, Changed, Filler };
    /// The background of such lines: a tint of the palette's base colour, so that it reads light or dark.
    QColor lineColor(LineKind kind) const;

    /// Indicator number of the changed-character boxes (for tests that read them back).
    static constexpr int kChangeIndicator = 8;

signals:
    void currentHunkChanged(int index);

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void fill(CodeView *view, bool leftSide);
    void syncScrollBars(CodeView *from, CodeView *to);

    TextDiff m_diff;
    int m_currentHunk = -1;
    CodeView *m_left;
    CodeView *m_right;
};

} // namespace kx::ui
