#include "ui/common/codeview.h"

#include <Qsci/qscilexer.h>

#include <QEvent>
#include <QFontDatabase>

#include <algorithm>

namespace kx::ui {

namespace {

constexpr int kLinkedMarker = 2;

QColor adaptToPalette(const QColor &color, const QColor &plain, const QPalette &palette, bool dark)
{
    if (color == plain || color.lightness() < 16)
        return palette.color(QPalette::Text); // The lexers' "plain" text colour.
    if (!dark)
        return color;
    float hue = 0, saturation = 0, lightness = 0, alpha = 1;
    color.getHslF(&hue, &saturation, &lightness, &alpha);
    return QColor::fromHslF(hue, saturation, std::max(0.55f, 1.0f - lightness), alpha);
}

} // namespace

CodeView::CodeView(QsciLexer *lexer, QWidget *parent)
    : QsciScintilla(parent)
{
    if (lexer) {
        lexer->setParent(this);
        setLexer(lexer);
    }
    setReadOnly(true);
    setUtf8(true);
    setMarginLineNumbers(0, true);
    setMarginWidth(1, 0);
    setFolding(QsciScintilla::NoFoldStyle);
    setWrapMode(QsciScintilla::WrapNone);
    setTabWidth(4);
    setBraceMatching(QsciScintilla::SloppyBraceMatch);
    // File drops belong to the main window (they open archives), not to the text.
    setAcceptDrops(false);
    viewport()->setAcceptDrops(false);
    markerDefine(QsciScintilla::Background, kLinkedMarker);
    applyPalette();
}

void CodeView::setCode(const QString &code)
{
    setText(code);
    m_highlighted.clear();
    updateMarginWidth();
}

void CodeView::highlightLines(const std::vector<int> &lines, bool scroll)
{
    markerDeleteAll(kLinkedMarker);
    m_highlighted.clear();
    for (const int line : lines) {
        if (line < 0 || line >= this->lines())
            continue;
        markerAdd(line, kLinkedMarker);
        m_highlighted.push_back(line);
    }
    if (scroll && !m_highlighted.empty())
        ensureLineVisible(m_highlighted.front());
}

void CodeView::changeEvent(QEvent *event)
{
    QsciScintilla::changeEvent(event);
    if (event->type() == QEvent::PaletteChange || event->type() == QEvent::FontChange)
        applyPalette();
}

void CodeView::applyPalette()
{
    const QPalette pal = palette();
    const bool dark = pal.color(QPalette::Base).lightness() < 128;
    const QFont fixed = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (QsciLexer *lex = lexer()) {
        // Plain styles report the lexer's default colour, which the previous call set from the old palette.
        const QColor plain = lex->defaultColor();
        lex->setDefaultFont(fixed);
        for (int style = 0; style < 128; ++style) {
            if (lex->description(style).isEmpty())
                continue;
            QFont font = fixed;
            font.setBold(lex->defaultFont(style).bold());
            font.setItalic(lex->defaultFont(style).italic());
            lex->setFont(font, style);
            lex->setColor(adaptToPalette(lex->defaultColor(style), plain, pal, dark), style);
            lex->setPaper(pal.color(QPalette::Base), style);
        }
        lex->setDefaultPaper(pal.color(QPalette::Base));
        lex->setDefaultColor(pal.color(QPalette::Text));
    } else {
        setFont(fixed);
        setPaper(pal.color(QPalette::Base));
        setColor(pal.color(QPalette::Text));
    }
    setMarginsFont(fixed);
    setMarginsBackgroundColor(pal.color(QPalette::Window));
    setMarginsForegroundColor(pal.color(QPalette::PlaceholderText));
    setSelectionBackgroundColor(pal.color(QPalette::Highlight));
    setSelectionForegroundColor(pal.color(QPalette::HighlightedText));
    setCaretForegroundColor(pal.color(QPalette::Text));
    setMatchedBraceBackgroundColor(pal.color(QPalette::AlternateBase));
    setMatchedBraceForegroundColor(pal.color(QPalette::Text));
    // Linked lines: the selection colour, faint enough to read the code through it.
    QColor linked = pal.color(QPalette::Highlight);
    linked = dark ? linked.darker(220) : QColor::fromHslF(linked.hslHueF(), 0.6f, 0.9f);
    setMarkerBackgroundColor(linked, kLinkedMarker);
    updateMarginWidth();
}

void CodeView::updateMarginWidth()
{
    const int digits = std::max(3, int(QString::number(std::max(1, lines())).size()));
    setMarginWidth(0, QString(digits + 1, QLatin1Char('0')));
}

} // namespace kx::ui
