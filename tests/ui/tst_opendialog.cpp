// File > Open Op: the catalog with its search field, recent ops, the selected op's details and its earlier
// runs, and the ops imported into the archive.
#include "archivefixture.h"

#include "ui/window/opendialog.h"

#include "core/ops/builtinops.h"

#include <QAbstractItemModelTester>
#include <QCoreApplication>
#include <QLabel>
#include <QSettings>
#include <QSignalSpy>
#include <QSortFilterProxyModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

using namespace kx;
using namespace kx::ui;

namespace {

QStringList names(const QSortFilterProxyModel *proxy)
{
    QStringList out;
    for (int row = 0; row < proxy->rowCount(); ++row)
        out << proxy->index(row, 0).data(OpenDialog::OpNameRole).toString();
    return out;
}

} // namespace

class TestOpenDialog : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void listsTheCatalog();
    void searchFieldFilters();
    void showsTheSelectedOp();
    void recentOpsComeFirst();
    void showsEarlierRunsAndImportedOps();

private:
    QTemporaryDir m_dir;
};

void TestOpenDialog::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_opendialog"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestOpenDialog::listsTheCatalog()
{
    OpenDialog dialog({});
    QAbstractItemModelTester tester(dialog.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QCOMPARE(dialog.proxy()->rowCount(), int(builtInOps().size()));
    QStringList expected;
    for (const Op &op : builtInOps())
        expected << QString::fromStdString(op.name);
    QCOMPARE(names(dialog.proxy()), expected);
    QVERIFY(dialog.selectedOp()); // The first one is selected, so Enter opens at once.
    QCOMPARE(dialog.selectedOp()->name, builtInOps().front().name);
}

void TestOpenDialog::searchFieldFilters()
{
    OpenDialog dialog({});
    QAbstractItemModelTester tester(dialog.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    dialog.setFilterText(QStringLiteral("softmax"));
    const QStringList hits = names(dialog.proxy());
    QVERIFY(!hits.isEmpty());
    QVERIFY(hits.size() < int(builtInOps().size()));
    for (const QString &name : hits) {
        const Op *op = findBuiltInOp(name.toStdString());
        QVERIFY(op);
        QVERIFY(name.contains(QLatin1String("softmax"))
                || QString::fromStdString(op->description).contains(QLatin1String("softmax"), Qt::CaseInsensitive));
    }
    dialog.setFilterText(QStringLiteral("no op is called this"));
    QCOMPARE(dialog.proxy()->rowCount(), 0);
    QVERIFY(!dialog.selectedOp());
    dialog.setFilterText(QString());
    QCOMPARE(dialog.proxy()->rowCount(), int(builtInOps().size()));
}

void TestOpenDialog::showsTheSelectedOp()
{
    OpenDialog dialog({});
    const Op *relu = findBuiltInOp("relu");
    QVERIFY(relu);
    QVERIFY(dialog.selectOp(QStringLiteral("relu")));
    QCOMPARE(dialog.selectedOp()->name, relu->name);
    QCOMPARE(dialog.referenceText(), QString::fromStdString(relu->referenceSource));
    QVERIFY(!dialog.referenceText().isEmpty());
    for (const auto &[symbol, size] : relu->shapeSets.front())
        QVERIFY(dialog.shapesText().contains(QStringLiteral("%1=%2").arg(QString::fromStdString(symbol)).arg(size)));
    QVERIFY(dialog.shapesText().contains(QString::fromStdString(relu->inputs.front().name)));
    QVERIFY(!dialog.selectOp(QStringLiteral("no_such_op")));
}

void TestOpenDialog::recentOpsComeFirst()
{
    OpenDialog::addRecentOp(QStringLiteral("softmax"));
    OpenDialog::addRecentOp(QStringLiteral("relu"));
    OpenDialog::addRecentOp(QStringLiteral("no_longer_an_op")); // Left over from another version: skipped.
    QCOMPARE(OpenDialog::recentOps().first(), QStringLiteral("no_longer_an_op"));
    OpenDialog dialog({});
    QAbstractItemModelTester tester(dialog.proxy(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const QStringList listed = names(dialog.proxy());
    QCOMPARE(listed.mid(0, 2), (QStringList{QStringLiteral("relu"), QStringLiteral("softmax")}));
    QCOMPARE(listed.count(QStringLiteral("relu")), 1);
    QCOMPARE(listed.size(), int(builtInOps().size()));
    QVERIFY(dialog.proxy()->index(0, 0).data(OpenDialog::RecentRole).toBool());
    QVERIFY(!dialog.proxy()->index(2, 0).data(OpenDialog::RecentRole).toBool());

    // Accepting an op makes it the most recent.
    QVERIFY(dialog.selectOp(QStringLiteral("gelu_tanh")));
    dialog.accept();
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(OpenDialog::recentOps().first(), QStringLiteral("gelu_tanh"));
}

void TestOpenDialog::showsEarlierRunsAndImportedOps()
{
    const QString path = m_dir.filePath(QStringLiteral("runs.kxdb"));
    std::int64_t first = 0, second = 0;
    {
        auto archive = test::openWritable(path);
        QVERIFY(archive);
        auto tx = archive->begin();
        archive->putOp(tx, *findBuiltInOp("relu"));
        Op imported = test::makeOp("kb/level1/19_ReLU", "class Model(nn.Module): ...");
        imported.sourceKind = SourceKind::KernelBench;
        imported.description = "KernelBench level 1 problem 19";
        archive->putOp(tx, imported);
        Run run;
        run.opName = "relu";
        run.seed = 11;
        run.state = RunState::Finished;
        first = archive->createRun(tx, run);
        run.seed = 12;
        run.state = RunState::Cancelled;
        second = archive->createRun(tx, run);
        tx.commit();
    }
    OpenDialog dialog(path);
    QSignalSpy runs(&dialog, &OpenDialog::runsLoaded);
    QSignalSpy imported(&dialog, &OpenDialog::archiveOpsLoaded);
    QTRY_VERIFY(!imported.isEmpty());
    QCOMPARE(imported.first().first().toInt(), 1);
    QVERIFY(names(dialog.proxy()).contains(QStringLiteral("kb/level1/19_ReLU")));
    QVERIFY(!dialog.findChild<QLabel *>(QStringLiteral("kernelBenchNote"))->text().contains(QLatin1String("none")));

    QVERIFY(dialog.selectOp(QStringLiteral("relu")));
    QTreeWidget *list = dialog.runsList();
    QTRY_COMPARE(list->topLevelItemCount(), 2);
    QCOMPARE(runs.last().first().toInt(), 2);
    QCOMPARE(list->topLevelItem(0)->text(0), QString::number(second)); // Newest first.
    QCOMPARE(list->topLevelItem(0)->text(1), QStringLiteral("cancelled"));
    QCOMPARE(list->topLevelItem(1)->text(0), QString::number(first));
    list->setCurrentItem(list->topLevelItem(1));
    QCOMPARE(dialog.selectedRunId(), first);

    // An op without runs shows none.
    runs.clear();
    QVERIFY(dialog.selectOp(QStringLiteral("softmax")));
    QTRY_VERIFY(!runs.isEmpty());
    QCOMPARE(list->topLevelItemCount(), 0);
    QCOMPARE(dialog.selectedRunId(), 0);
}

QTEST_MAIN(TestOpenDialog)
#include "tst_opendialog.moc"
