#pragma once

#include <Qsci/qsciscintilla.h>

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

protected:
    void changeEvent(QEvent *event) override;

private:
    void applyPalette();
    void updateMarginWidth();
};

} // namespace kx::ui
