#include "ui/diff/diffpane.h"

#include "ui/common/codeview.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QSplitter>

namespace kx::ui {

namespace {

enum Marker { RemovedMarker = 1, AddedMarker, ChangedMarker, FillerMarker };

/// Mid-tone backgrounds blended over the base colour, so that they read on light and dark palettes.
QColor tint(const QColor &base, const QColor &color, double amount)
{
    return QColor::fromRgbF(float(base.redF() * (1 - amount) + color.redF() * amount),
                            float(base.greenF() * (1 - amount) + color.greenF() * amount),
                            float(base.blueF() * (1 - amount) + color.blueF() * amount));
}

int utf8Offset(const QList<uint> &codePoints, int count)
{
    return int(QString::fromUcs4(reinterpret_cast<const char32_t *>(codePoints.constData()),
                                 std::min<qsizetype>(count, codePoints.size()))
                   .toUtf8()
                   .size());
}

} // namespace

DiffPane::DiffPane(QsciLexer *leftLexer, QsciLexer *rightLexer, QWidget *parent)
    : QWidget(parent)
    , m_left(new CodeView(leftLexer, this))
    , m_right(new CodeView(rightLexer, this))
{
    m_left->setObjectName(QStringLiteral("leftDiffView"));
    m_right->setObjectName(QStringLiteral("rightDiffView"));
    auto splitter = new QSplitter(Qt::Horizontal, this);
    splitter->setChildrenCollapsible(false);
    splitter->addWidget(m_left);
    splitter->addWidget(m_right);
    auto layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter);

    for (CodeView *view : {m_left, m_right}) {
        // Original line numbers go into a text margin: filler rows have none.
        view->setMarginLineNumbers(0, false);
        view->setMarginType(0, QsciScintilla::TextMarginRightJustified);
        for (int marker : {RemovedMarker, AddedMarker, ChangedMarker, FillerMarker})
            view->markerDefine(QsciScintilla::Background, marker);
        view->indicatorDefine(QsciScintilla::FullBoxIndicator, kChangeIndicator);
        view->setIndicatorForegroundColor(QColor(230, 120, 0, 110), kChangeIndicator);
        view->setIndicatorDrawUnder(true, kChangeIndicator);
    }
    applyPalette();
    syncScrollBars(m_left, m_right);
    syncScrollBars(m_right, m_left);
}

QColor DiffPane::lineColor(LineKind kind) const
{
    const QColor base = palette().color(QPalette::Base);
    switch (kind) {
    case LineKind::Removed: return tint(base, QColor(220, 50, 47), 0.22);
    case LineKind::Added: return tint(base, QColor(40, 170, 60), 0.22);
    case LineKind::Changed: return tint(base, QColor(230, 170, 20), 0.20);
    case LineKind::Filler: break;
    }
    return tint(base, palette().color(QPalette::Mid), 0.35);
}

void DiffPane::applyPalette()
{
    for (CodeView *view : {m_left, m_right}) {
        view->setMarkerBackgroundColor(lineColor(LineKind::Removed), RemovedMarker);
        view->setMarkerBackgroundColor(lineColor(LineKind::Added), AddedMarker);
        view->setMarkerBackgroundColor(lineColor(LineKind::Changed), ChangedMarker);
        view->setMarkerBackgroundColor(lineColor(LineKind::Filler), FillerMarker);
    }
}

void DiffPane::changeEvent(QEvent *event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        applyPalette();
}

void DiffPane::syncScrollBars(CodeView *from, CodeView *to)
{
    // Both views hold the same number of rows, so equal positions show the same rows. Scintilla reports
    // every scroll (wheel, keys, scroll bar, programmatic) through SCN_UPDATEUI.
    connect(from, &QsciScintillaBase::SCN_UPDATEUI, to, [from, to](int updated) {
        if (updated & QsciScintillaBase::SC_UPDATE_V_SCROLL) {
            const int line = from->firstVisibleLine();
            if (to->firstVisibleLine() != line)
                to->setFirstVisibleLine(line);
        }
        if (updated & QsciScintillaBase::SC_UPDATE_H_SCROLL) {
            const long offset = from->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET);
            if (to->SendScintilla(QsciScintillaBase::SCI_GETXOFFSET) != offset)
                to->SendScintilla(QsciScintillaBase::SCI_SETXOFFSET, offset);
        }
    });
}

void DiffPane::setTexts(const QString &left, const QString &right)
{
    m_diff = DiffEngine::diff(left, right);
    m_currentHunk = -1;
    fill(m_left, true);
    fill(m_right, false);
    emit currentHunkChanged(m_currentHunk);
}

void DiffPane::clear()
{
    setTexts({}, {});
}

void DiffPane::fill(CodeView *view, bool leftSide)
{
    const QStringList &lines = leftSide ? m_diff.leftLines : m_diff.rightLines;
    QStringList shown;
    shown.reserve(qsizetype(m_diff.rows.size()));
    for (const DiffRow &row : m_diff.rows) {
        const int line = leftSide ? row.leftLine : row.rightLine;
        shown << (line >= 0 ? lines.at(line) : QString());
    }
    view->setCode(shown.join(QLatin1Char('\n')));
    view->markerDeleteAll();
    view->clearMarginText();
    view->SendScintilla(QsciScintillaBase::SCI_SETINDICATORCURRENT, kChangeIndicator);
    view->SendScintilla(QsciScintillaBase::SCI_INDICATORCLEARRANGE, 0, view->length());

    int widest = 1;
    for (int r = 0; r < int(m_diff.rows.size()); ++r) {
        const DiffRow &row = m_diff.rows[std::size_t(r)];
        const int line = leftSide ? row.leftLine : row.rightLine;
        if (line < 0) {
            view->markerAdd(r, FillerMarker);
            continue;
        }
        view->setMarginText(r, QString::number(line + 1), 0);
        widest = std::max(widest, line + 1);
        switch (row.kind) {
        case DiffRow::Kind::Equal: break;
        case DiffRow::Kind::Removed: view->markerAdd(r, RemovedMarker); break;
        case DiffRow::Kind::Added: view->markerAdd(r, AddedMarker); break;
        case DiffRow::Kind::Changed: {
            view->markerAdd(r, ChangedMarker);
            // Scintilla positions are UTF-8 byte offsets; the diff counts code points.
            const QList<uint> codePoints = lines.at(line).toUcs4();
            const long lineStart = view->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, r);
            for (const DiffRange &range : leftSide ? row.leftRanges : row.rightRanges) {
                const int from = utf8Offset(codePoints, range.start);
                const int to = utf8Offset(codePoints, range.start + range.length);
                view->SendScintilla(QsciScintillaBase::SCI_INDICATORFILLRANGE, lineStart + from, to - from);
            }
            break;
        }
        }
    }
    view->setMarginWidth(0, QString(std::max(3, int(QString::number(widest).size())) + 1, QLatin1Char('0')));
}

bool DiffPane::nextChange()
{
    if (m_currentHunk + 1 >= hunkCount())
        return false;
    goToHunk(m_currentHunk + 1);
    return true;
}

bool DiffPane::previousChange()
{
    if (m_currentHunk <= 0)
        return false;
    goToHunk(m_currentHunk - 1);
    return true;
}

void DiffPane::goToHunk(int index)
{
    if (index < 0 || index >= hunkCount())
        return;
    m_currentHunk = index;
    const int row = m_diff.hunks[std::size_t(index)].firstRow;
    for (CodeView *view : {m_left, m_right}) {
        view->setCursorPosition(row, 0);
        view->setFirstVisibleLine(std::max(0, row - 3));
    }
    emit currentHunkChanged(index);
}

} // namespace kx::ui
