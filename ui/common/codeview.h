#pragma once

#include <Qsci/qsciscintilla.h>

#include <vector>

class QsciLexer;

namespace kx::ui {

/**
 * A read-only code view with line numbers in the system's fixed font. The lexer's colours follow
 * the widget palette: on a dark palette each syntax colour keeps its hue with inverted lightness.
 */
class CodeView : public QsciScintilla
{
    Q_OBJECT

public:
    /// Takes ownership of lexer (may be null for plain text).
    explicit CodeView(QsciLexer *lexer, QWidget *parent = nullptr);

    void setCode(const QString &code);

    /// Marks these 0-based lines with a background (replacing the previous ones) and scrolls the first into view
    /// when scroll is set: the lines linked to a line of another view.
    void highlightLines(const std::vector<int> &lines, bool scroll = false);
    const std::vector<int> &highlightedLines() const { return m_highlighted; }

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void updateMarginWidth();

    std::vector<int> m_highlighted;
};

} // namespace kx::ui
