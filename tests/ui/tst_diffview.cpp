// The diff engine (dtl line and character diffs), the side-by-side pane and the diff page.
#include "screenshotsupport.h"
#include "ui/common/archivereader.h"
#include "ui/common/codeview.h"
#include "ui/diff/diffengine.h"
#include "ui/diff/diffpane.h"
#include "ui/diff/diffview.h"

#include "core/archive/archive.h"
#include "core/archive/archivejson.h"

#include <nlohmann/json.hpp>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include <fstream>

using namespace kx;
using namespace kx::ui;

Q_DECLARE_METATYPE(std::vector<kx::ui::DiffRange>)

namespace {

const char kParent[] = "adf9f184100be56fb77740bb17870407d2917ee0e59456e5184a120f48e8e68e";
const char kChild[] = "befc282af6a7f5aa3b7f11ff4a69e94620eb702fdda8d950578f8a5ff9d3abcc";

/// Imports tests/data/sample-archive.json into a new archive at path.
bool importSample(const QString &path)
{
    std::ifstream in(KX_TEST_DATA_DIR "/sample-archive.json");
    auto archive = Archive::open(QFile::encodeName(path).toStdString());
    if (!in || !archive)
        return false;
    return bool(importArchive(**archive, nlohmann::json::parse(in)));
}

QString marginText(CodeView *view, int line)
{
    const long length =
        view->SendScintilla(QsciScintillaBase::SCI_MARGINGETTEXT, line, static_cast<const char *>(nullptr));
    QByteArray text(int(length) + 1, '\0');
    view->SendScintilla(QsciScintillaBase::SCI_MARGINGETTEXT, line, text.constData());
    return QString::fromUtf8(text.constData());
}

int indicatorAt(CodeView *view, int line, int column)
{
    const long position = view->SendScintilla(QsciScintillaBase::SCI_POSITIONFROMLINE, line) + column;
    return int(view->SendScintilla(QsciScintillaBase::SCI_INDICATORVALUEAT, DiffPane::kChangeIndicator, position));
}

} // namespace

class TestDiffView : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void lineDiff();
    void characterRanges_data();
    void characterRanges();
    void identicalAndEmpty();
    void paneAlignsAndMarks();
    void nextAndPreviousChange();
    void scrollingStaysInStep();
    void comparesWithFirstParent();
    void comparesChosenCandidates();
    void unknownCandidateIsReported();
    void choicesAreReadOncePerOp();

private:
    QTemporaryDir m_dir;
    QString m_archivePath;
};

void TestDiffView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    m_archivePath = m_dir.filePath(QStringLiteral("sample.kxdb"));
    QVERIFY(importSample(m_archivePath));
}

void TestDiffView::lineDiff()
{
    const TextDiff diff = DiffEngine::diff(QStringLiteral("a\nb\nc\nold\n"), QStringLiteral("a\nB\nc\nd\ne\n"));
    // a = a, b ~ B, c = c, then "old" paired with "d", and "e" added.
    QCOMPARE(int(diff.rows.size()), 5);
    QCOMPARE(diff.rows[0].kind, DiffRow::Kind::Equal);
    QCOMPARE(diff.rows[1].kind, DiffRow::Kind::Changed);
    QCOMPARE(diff.rows[1].leftLine, 1);
    QCOMPARE(diff.rows[1].rightLine, 1);
    QCOMPARE(diff.rows[2].kind, DiffRow::Kind::Equal);
    QCOMPARE(diff.rows[3].kind, DiffRow::Kind::Changed);
    QCOMPARE(diff.rows[3].leftLine, 3);
    QCOMPARE(diff.rows[3].rightLine, 3);
    QCOMPARE(diff.rows[4].kind, DiffRow::Kind::Added);
    QCOMPARE(diff.rows[4].leftLine, -1);
    QCOMPARE(diff.rows[4].rightLine, 4);
    QCOMPARE(int(diff.hunks.size()), 2);
    QCOMPARE(diff.hunks[0].firstRow, 1);
    QCOMPARE(diff.hunks[0].rowCount, 1);
    QCOMPARE(diff.hunks[1].firstRow, 3);
    QCOMPARE(diff.hunks[1].rowCount, 2);
    QCOMPARE(diff.changed, 2);
    QCOMPARE(diff.added, 1);
    QCOMPARE(diff.removed, 0);

    const TextDiff removed = DiffEngine::diff(QStringLiteral("x\ny\nz"), QStringLiteral("x\nz"));
    QCOMPARE(int(removed.rows.size()), 3);
    QCOMPARE(removed.rows[1].kind, DiffRow::Kind::Removed);
    QCOMPARE(removed.rows[1].leftLine, 1);
    QCOMPARE(removed.rows[1].rightLine, -1);
    QCOMPARE(removed.removed, 1);
}

void TestDiffView::characterRanges_data()
{
    QTest::addColumn<QString>("left");
    QTest::addColumn<QString>("right");
    QTest::addColumn<std::vector<DiffRange>>("leftRanges");
    QTest::addColumn<std::vector<DiffRange>>("rightRanges");

    QTest::newRow("function name") << QStringLiteral("out[i] = fmaxf(x[i], 0.f);")
                                   << QStringLiteral("out[i] = fminf(x[i], 0.f);") << std::vector<DiffRange>{{11, 2}}
                                   << std::vector<DiffRange>{{11, 2}};
    QTest::newRow("insertion only") << QStringLiteral("x(a, b)") << QStringLiteral("x(a, b, c)")
                                    << std::vector<DiffRange>{} << std::vector<DiffRange>{{6, 3}};
    QTest::newRow("two places") << QStringLiteral("int a = 1; int b = 2;") << QStringLiteral("int a = 7; int b = 9;")
                                << std::vector<DiffRange>{{8, 1}, {19, 1}} << std::vector<DiffRange>{{8, 1}, {19, 1}};
    // A number changes as a whole: 128 -> 256 is not "1" and "8" around a common "2".
    QTest::newRow("numbers stay whole") << QStringLiteral("constexpr int BLOCK = 128;")
                                        << QStringLiteral("constexpr int BLOCK = 256;")
                                        << std::vector<DiffRange>{{22, 3}} << std::vector<DiffRange>{{22, 3}};
    QTest::newRow("literals with suffixes") << QStringLiteral("y = x * 0.25f;") << QStringLiteral("y = x * 0.5f;")
                                            << std::vector<DiffRange>{{8, 5}} << std::vector<DiffRange>{{8, 4}};
    QTest::newRow("digits in names stay characters")
        << QStringLiteral("float4 v;") << QStringLiteral("float2 v;") << std::vector<DiffRange>{{5, 1}}
        << std::vector<DiffRange>{{5, 1}};
    // Ranges count code points: the two-byte µ and the four-byte emoji are one each.
    QTest::newRow("non-ASCII") << QStringLiteral("µs 😀 = 1") << QStringLiteral("µs 😀 = 2")
                               << std::vector<DiffRange>{{7, 1}} << std::vector<DiffRange>{{7, 1}};
}

void TestDiffView::characterRanges()
{
    QFETCH(QString, left);
    QFETCH(QString, right);
    QFETCH(std::vector<DiffRange>, leftRanges);
    QFETCH(std::vector<DiffRange>, rightRanges);
    const auto [l, r] = DiffEngine::diffLine(left, right);
    QCOMPARE(l, leftRanges);
    QCOMPARE(r, rightRanges);
    // The same ranges arrive in the rows of a whole-text diff.
    const TextDiff diff = DiffEngine::diff(left, right);
    QCOMPARE(int(diff.rows.size()), 1);
    QCOMPARE(diff.rows[0].kind, DiffRow::Kind::Changed);
    QCOMPARE(diff.rows[0].leftRanges, leftRanges);
    QCOMPARE(diff.rows[0].rightRanges, rightRanges);
}

void TestDiffView::identicalAndEmpty()
{
    const TextDiff same = DiffEngine::diff(QStringLiteral("a\r\nb\n"), QStringLiteral("a\nb"));
    QVERIFY(same.isIdentical());
    QCOMPARE(int(same.rows.size()), 2);
    const TextDiff empty = DiffEngine::diff({}, {});
    QVERIFY(empty.isIdentical());
    QVERIFY(empty.rows.empty());
    const TextDiff fromNothing = DiffEngine::diff({}, QStringLiteral("new\n"));
    QCOMPARE(fromNothing.added, 1);
    QCOMPARE(int(fromNothing.hunks.size()), 1);
}

void TestDiffView::paneAlignsAndMarks()
{
    DiffPane pane(nullptr, nullptr);
    pane.resize(800, 400);
    pane.setTexts(QStringLiteral("keep\nout = fmaxf(x, 0);\ngone\n"), QStringLiteral("keep\nout = fminf(x, 0);\n"));
    CodeView *left = pane.leftView();
    CodeView *right = pane.rightView();
    // Three rows on both sides: the removed line has an empty filler on the right.
    QCOMPARE(left->lines(), 3);
    QCOMPARE(right->lines(), 3);
    QCOMPARE(left->text(2), QStringLiteral("gone"));
    QCOMPARE(right->text(2), QString());
    QCOMPARE(marginText(right, 2), QString());
    QCOMPARE(marginText(left, 2), QStringLiteral("3"));
    // Line backgrounds: changed on row 1 of both sides, removed on row 2 left, filler on row 2 right.
    QVERIFY(left->markersAtLine(0) == 0);
    QVERIFY(left->markersAtLine(1) != 0);
    QCOMPARE(left->markersAtLine(1), right->markersAtLine(1));
    QVERIFY(left->markersAtLine(2) != 0);
    QVERIFY(right->markersAtLine(2) != 0);
    QVERIFY(left->markersAtLine(2) != right->markersAtLine(2));
    // Changed characters "ax" -> "in" in "fmaxf" (columns 8 and 9) and nothing around them.
    QCOMPARE(indicatorAt(left, 1, 7), 0);
    QVERIFY(indicatorAt(left, 1, 8) != 0);
    QVERIFY(indicatorAt(left, 1, 9) != 0);
    QCOMPARE(indicatorAt(left, 1, 10), 0);
    QVERIFY(indicatorAt(right, 1, 8) != 0);
    QCOMPARE(indicatorAt(right, 0, 0), 0);
}

void TestDiffView::nextAndPreviousChange()
{
    DiffPane pane(nullptr, nullptr);
    QString left, right;
    for (int i = 0; i < 60; ++i) {
        left += QStringLiteral("line %1\n").arg(i);
        right += (i == 10 || i == 40 ? QStringLiteral("LINE %1\n") : QStringLiteral("line %1\n")).arg(i);
    }
    pane.setTexts(left, right);
    QCOMPARE(pane.hunkCount(), 2);
    QCOMPARE(pane.currentHunk(), -1);
    QSignalSpy moved(&pane, &DiffPane::currentHunkChanged);
    QVERIFY(!pane.previousChange());
    QVERIFY(pane.nextChange());
    QCOMPARE(pane.currentHunk(), 0);
    int line = -1, index = -1;
    pane.leftView()->getCursorPosition(&line, &index);
    QCOMPARE(line, 10);
    pane.rightView()->getCursorPosition(&line, &index);
    QCOMPARE(line, 10);
    QVERIFY(pane.nextChange());
    QCOMPARE(pane.currentHunk(), 1);
    pane.leftView()->getCursorPosition(&line, &index);
    QCOMPARE(line, 40);
    QVERIFY(!pane.nextChange());
    QCOMPARE(pane.currentHunk(), 1);
    QVERIFY(pane.previousChange());
    QCOMPARE(pane.currentHunk(), 0);
    QVERIFY(!pane.previousChange());
    QCOMPARE(moved.count(), 3);
}

void TestDiffView::scrollingStaysInStep()
{
    DiffPane pane(nullptr, nullptr);
    pane.resize(600, 200);
    pane.show();
    QVERIFY(QTest::qWaitForWindowExposed(&pane));
    QString text;
    for (int i = 0; i < 200; ++i)
        text += QStringLiteral("line %1\n").arg(i);
    pane.setTexts(text, text + QStringLiteral("extra\n"));
    pane.leftView()->setFirstVisibleLine(120);
    QTRY_COMPARE(pane.rightView()->firstVisibleLine(), 120);
    pane.rightView()->setFirstVisibleLine(30);
    QTRY_COMPARE(pane.leftView()->firstVisibleLine(), 30);
}

void TestDiffView::comparesWithFirstParent()
{
    DiffView view;
    view.resize(1200, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setArchive(archiveRef(m_archivePath));
    QSignalSpy loaded(&view, &DiffView::loaded);
    view.showCandidate(QString::fromLatin1(kChild));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(loaded.first().first().toString(), QString());
    QCOMPARE(view.leftId(), QString::fromLatin1(kParent));
    QCOMPARE(view.rightId(), QString::fromLatin1(kChild));

    // Source: the branch became fmaxf, one changed line.
    const TextDiff &source = view.sourcePane()->diff();
    QCOMPARE(source.changed, 1);
    QCOMPARE(source.added + source.removed, 0);
    const auto changed = std::find_if(source.rows.begin(), source.rows.end(),
                                      [](const DiffRow &row) { return row.kind == DiffRow::Kind::Changed; });
    QVERIFY(changed != source.rows.end());
    QVERIFY(source.rightLines.at(changed->rightLine).contains(QLatin1String("fmaxf")));
    QVERIFY(!changed->rightRanges.empty());

    // Launch plan: 256 -> 512 in grid and block, nothing else.
    const TextDiff &plan = view.planPane()->diff();
    QCOMPARE(plan.changed, 2);
    for (const DiffRow &row : plan.rows) {
        if (row.kind != DiffRow::Kind::Changed)
            continue;
        QVERIFY(plan.leftLines.at(row.leftLine).contains(QLatin1String("256")));
        QVERIFY(plan.rightLines.at(row.rightLine).contains(QLatin1String("512")));
    }
    QVERIFY(view.summaryText().contains(QLatin1String("1 changed")));

    // The shortcuts and actions move through the changes of the shown tab.
    QVERIFY(view.nextChangeAction()->shortcuts().contains(QKeySequence(Qt::ALT | Qt::Key_Down)));
    QVERIFY(view.previousChangeAction()->shortcuts().contains(QKeySequence(Qt::ALT | Qt::Key_Up)));
    view.tabs()->setCurrentWidget(view.planPane());
    view.nextChangeAction()->trigger();
    QCOMPARE(view.planPane()->currentHunk(), 0);
    QCOMPARE(view.sourcePane()->currentHunk(), -1);
    view.tabs()->setCurrentWidget(view.sourcePane());
    view.sourcePane()->setFocus();
    QTest::keyClick(view.sourcePane()->leftView(), Qt::Key_F8);
    QCOMPARE(view.sourcePane()->currentHunk(), 0);
    test::saveScreenshot(&view, QStringLiteral("diff.png"));
}

void TestDiffView::comparesChosenCandidates()
{
    DiffView view;
    view.setArchive(archiveRef(m_archivePath));
    QSignalSpy loaded(&view, &DiffView::loaded);
    const QString crossover = QStringLiteral("e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c");
    view.compare(QString::fromLatin1(kParent), crossover);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QCOMPARE(view.leftId(), QString::fromLatin1(kParent));
    QCOMPARE(view.rightId(), crossover);
    QVERIFY(view.planPane()->diff().changed > 0);

    // A candidate without parent is compared with itself: no differences.
    view.showCandidate(QString::fromLatin1(kParent));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCOMPARE(view.leftId(), view.rightId());
    QVERIFY(view.sourcePane()->diff().isIdentical());
}

// The choosers list the op's kernels: a selection within the op does not read them again (at 30k kernels that
// cost a second a click); after reload() the next comparison does.
void TestDiffView::choicesAreReadOncePerOp()
{
    const QString path = m_dir.filePath(QStringLiteral("choices.kxdb"));
    QVERIFY(importSample(path));
    DiffView view;
    view.setArchive(archiveRef(path));
    QSignalSpy loaded(&view, &DiffView::loaded);
    const QString crossover = QStringLiteral("e8fbd32f7a1f58b1aa0d14118d7d47b10721acd5d22040e47e5925b3194f450c");
    view.showCandidate(crossover);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    auto *right = view.findChild<QComboBox *>(QStringLiteral("rightCandidate"));
    const int listed = right->count();
    {
        auto archive = Archive::open(QFile::encodeName(path).toStdString());
        QVERIFY(archive);
        Candidate added = *(*archive)->candidate(crossover.toStdString());
        added.source += "\n// one more\n";
        added.id = makeCandidateId(added.source, added.launchPlan);
        added.parentIds = {crossover.toStdString()};
        auto tx = (*archive)->begin();
        (*archive)->addCandidate(tx, added, 3);
        tx.commit();
    }
    view.showCandidate(QString::fromLatin1(kParent));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 10000);
    QCOMPARE(right->count(), listed); // not read again
    QCOMPARE(right->currentData().toString(), QString::fromLatin1(kParent));

    view.reload();
    view.showCandidate(crossover);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 3, 10000);
    QCOMPARE(right->count(), listed + 1);
    QCOMPARE(right->currentData().toString(), crossover);
}

void TestDiffView::unknownCandidateIsReported()
{
    DiffView view;
    view.setArchive(archiveRef(m_archivePath));
    QSignalSpy loaded(&view, &DiffView::loaded);
    view.showCandidate(QStringLiteral("0000000000000000"));
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 10000);
    QVERIFY(loaded.first().first().toString().contains(QLatin1String("not in the archive")));

    DiffView broken;
    broken.setArchive(archiveRef(m_dir.filePath(QStringLiteral("missing.kxdb"))));
    QSignalSpy failed(&broken, &DiffView::loaded);
    broken.showCandidate(QString::fromLatin1(kChild));
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QVERIFY(!failed.first().first().toString().isEmpty());
}

QTEST_MAIN(TestDiffView)
#include "tst_diffview.moc"
