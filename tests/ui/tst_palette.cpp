// Following the system's light/dark palette live: plots, code views, diff highlights and the lineage overview
// take their colours from the application palette again when it changes.
#include "ui/common/codeview.h"
#include "ui/common/cudalexer.h"
#include "ui/diff/diffpane.h"
#include "ui/lineage/lineageoverview.h"
#include "ui/lineage/lineageview.h"
#include "ui/plots/plotspage.h"

#include <Qsci/qscilexer.h>
#include <qcustomplot.h>

#include <QApplication>
#include <QGraphicsRectItem>
#include <QGraphicsScene>
#include <QTest>

using namespace kx::ui;

namespace {

QPalette darkPalette()
{
    QPalette dark(QColor(0x35, 0x35, 0x35), QColor(0x2b, 0x2b, 0x2b));
    dark.setColor(QPalette::Base, QColor(0x1e, 0x1e, 0x1e));
    dark.setColor(QPalette::AlternateBase, QColor(0x2a, 0x2a, 0x2a));
    dark.setColor(QPalette::Text, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::WindowText, QColor(0xe6, 0xe6, 0xe6));
    dark.setColor(QPalette::Mid, QColor(0x60, 0x60, 0x60));
    return dark;
}

bool isDark(const QColor &color)
{
    return color.lightness() < 80;
}

bool isLight(const QColor &color)
{
    return color.lightness() > 170;
}

} // namespace

class TestPalette : public QObject
{
    Q_OBJECT

private slots:
    void init();
    void cleanup();
    void plotsFollow();
    void codeViewFollows();
    void diffHighlightsFollow();
    void lineageOverviewFollows();

private:
    QPalette m_light;
};

void TestPalette::init()
{
    // The offscreen platform's default palette is light; make sure of it.
    m_light = QPalette(QColor(0xef, 0xef, 0xef), QColor(0xef, 0xef, 0xef));
    m_light.setColor(QPalette::Base, Qt::white);
    m_light.setColor(QPalette::Text, Qt::black);
    m_light.setColor(QPalette::WindowText, Qt::black);
    QApplication::setPalette(m_light);
}

void TestPalette::cleanup()
{
    QApplication::setPalette(m_light);
}

void TestPalette::plotsFollow()
{
    PlotsPage page;
    page.resize(900, 700);
    page.show();
    QVERIFY(QTest::qWaitForWindowExposed(&page));
    QCustomPlot *plot = page.plot(PlotsPage::SpeedupBarsPlot);
    auto background = [plot] { return plot->toPixmap(200, 150).toImage().pixelColor(2, 2); };
    QVERIFY(isLight(background()));
    QVERIFY(isDark(plot->xAxis->tickLabelColor()));
    QVERIFY(isDark(plot->yAxis->basePen().color()));

    QApplication::setPalette(darkPalette());
    QTRY_VERIFY(isDark(background()));
    QTRY_VERIFY(isLight(plot->xAxis->tickLabelColor()));
    QVERIFY(isLight(plot->yAxis->basePen().color()));
    QVERIFY(isLight(plot->xAxis->labelColor()));
    QCOMPARE(plot->xAxis->grid()->pen().color(), darkPalette().color(QPalette::Mid));
    // All four plots, not only the first.
    QTRY_VERIFY(isLight(page.plot(PlotsPage::RooflinePlot)->yAxis->tickLabelColor()));

    QApplication::setPalette(m_light);
    QTRY_VERIFY(isLight(background()));
    QTRY_VERIFY(isDark(plot->xAxis->tickLabelColor()));
}

void TestPalette::codeViewFollows()
{
    CodeView view(new CudaLexer);
    view.setCode(QStringLiteral("__global__ void k(float *x) { x[0] = 1.0f; }"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(isLight(view.lexer()->defaultPaper()));
    QVERIFY(isDark(view.lexer()->defaultColor()));

    QApplication::setPalette(darkPalette());
    QTRY_VERIFY(isDark(view.lexer()->defaultPaper()));
    QCOMPARE(view.lexer()->defaultPaper(), darkPalette().color(QPalette::Base));
    QVERIFY(isLight(view.lexer()->defaultColor()));
    // Every syntax style gets the dark paper, and keywords stay readable on it.
    for (int style = 0; style < 128; ++style) {
        if (view.lexer()->description(style).isEmpty())
            continue;
        QCOMPARE(view.lexer()->paper(style), darkPalette().color(QPalette::Base));
        QVERIFY2(view.lexer()->color(style).lightness() >= 120, qPrintable(view.lexer()->description(style)));
    }
}

void TestPalette::diffHighlightsFollow()
{
    DiffPane pane(new CudaLexer, new CudaLexer);
    pane.setTexts(QStringLiteral("a\nb\n"), QStringLiteral("a\nc\n"));
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    const QColor lightAdded = pane.lineColor(DiffPane::LineKind::Added);
    QVERIFY(isLight(lightAdded));
    QVERIFY(lightAdded.green() > lightAdded.red()); // Still green.

    QApplication::setPalette(darkPalette());
    QTRY_VERIFY(isDark(pane.lineColor(DiffPane::LineKind::Added)));
    for (auto kind : {DiffPane::LineKind::Removed, DiffPane::LineKind::Changed, DiffPane::LineKind::Filler})
        QVERIFY(isDark(pane.lineColor(kind)));
    QVERIFY(pane.lineColor(DiffPane::LineKind::Added).green() > pane.lineColor(DiffPane::LineKind::Added).red());
    QVERIFY(pane.lineColor(DiffPane::LineKind::Removed).red() > pane.lineColor(DiffPane::LineKind::Removed).green());
    QTRY_COMPARE(pane.leftView()->lexer()->defaultPaper(), darkPalette().color(QPalette::Base));
}

void TestPalette::lineageOverviewFollows()
{
    QGraphicsScene scene;
    scene.addRect(0, 0, 1000, 40, QPen(Qt::NoPen), QBrush(QColor(0x3a, 0x9f, 0x52)));
    scene.setSceneRect(0, 0, 1000, 40);
    LineageView view;
    view.setScene(&scene);
    LineageOverview overview(&view);
    overview.resize(200, 160);
    overview.refresh();
    // The scene is wide and flat: the picture's lower part is the background.
    auto corner = [&overview] {
        const QImage image = overview.picture().toImage();
        return image.pixelColor(image.width() - 3, image.height() - 3);
    };
    QVERIFY(!overview.picture().isNull());
    QVERIFY(isLight(corner()));

    QApplication::setPalette(darkPalette());
    QTRY_VERIFY(isDark(corner()));
    QCOMPARE(corner(), darkPalette().color(QPalette::Base));
    QVERIFY(isDark(view.viewport()->palette().color(view.viewport()->backgroundRole())));
}

QTEST_MAIN(TestPalette)
#include "tst_palette.moc"
