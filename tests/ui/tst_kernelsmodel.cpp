// The kernels table: model contents, numeric sorting, filters, speedups against both baselines with the
// precision policy, and loading off the GUI thread.
#include "archivefixture.h"

#include "ui/common/archivereader.h"
#include "ui/common/baselineformat.h"
#include "ui/kernels/kernelsmodel.h"
#include "ui/kernels/kernelspage.h"
#include "ui/kernels/kernelsproxymodel.h"

#include <QAbstractItemModelTester>
#include <QFile>
#include <QLocale>
#include <QSemaphore>
#include <QSet>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QThreadPool>

using namespace kx;
using namespace kx::ui;

class TestKernelsModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void contents();
    void sortsNumbersAsNumbers_data();
    void sortsNumbersAsNumbers();
    void filters_data();
    void filters();
    void inductorAndPrecisionColumns();
    void pageLoadsOffThread();
    void pageDropsStaleLoads();
    void pageDropsTheLoadOfAClosedArchive();
    void pageReportsUnreadableArchive();

private:
    QStringList proxyIds() const;

    QTemporaryDir m_dir;
    QString m_path;
    test::SampleArchive m_sample;
    KernelsModel *m_model = nullptr;
    KernelsProxyModel *m_proxy = nullptr;
};

void TestKernelsModel::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QLocale::setDefault(QLocale::c());
    QVERIFY(m_dir.isValid());
    m_path = m_dir.filePath(QStringLiteral("sample.kxdb"));
    m_sample = test::SampleArchive::write(m_path);

    m_model = new KernelsModel(this);
    m_proxy = new KernelsProxyModel(this);
    // Testers watch every later reset, sort and filter change.
    new QAbstractItemModelTester(m_model, QAbstractItemModelTester::FailureReportingMode::QtTest, this);
    m_proxy->setSourceModel(m_model);
    new QAbstractItemModelTester(m_proxy, QAbstractItemModelTester::FailureReportingMode::QtTest, this);

    auto archive = Archive::open(m_path.toStdString(), ArchiveMode::ReadOnly);
    QVERIFY2(archive.hasValue(), archive ? "" : archive.error().message.c_str());
    m_model->setSummaries((*archive)->candidateSummaries());
}

QStringList TestKernelsModel::proxyIds() const
{
    QStringList ids;
    for (int row = 0; row < m_proxy->rowCount(); ++row)
        ids << m_proxy->index(row, 0).data(KernelsModel::CandidateIdRole).toString();
    return ids;
}

static QString q(const std::string &text)
{
    return QString::fromStdString(text);
}

void TestKernelsModel::contents()
{
    QCOMPARE(m_model->rowCount(), 5);
    QCOMPARE(m_model->columnCount(), int(KernelsModel::ColumnCount));
    QCOMPARE(m_model->opNames(), (QStringList{"relu", "softmax"}));
    QCOMPARE(m_model->headerData(KernelsModel::SpeedupColumn, Qt::Horizontal).toString(), QStringLiteral("× eager"));

    const auto cell = [this](const std::string &id, int column, int role = Qt::DisplayRole) {
        const int row = m_model->rowOf(q(id));
        return row < 0 ? QVariant() : m_model->index(row, column).data(role);
    };
    QCOMPARE(m_model->rowOf(QStringLiteral("no-such-id")), -1);

    QCOMPARE(cell(m_sample.b, KernelsModel::IdColumn).toString(), q(m_sample.b.substr(0, 12)));
    QCOMPARE(cell(m_sample.b, KernelsModel::IdColumn, Qt::ToolTipRole).toString(), q(m_sample.b));
    QCOMPARE(cell(m_sample.b, KernelsModel::IdColumn, KernelsModel::CandidateIdRole).toString(), q(m_sample.b));
    QCOMPARE(cell(m_sample.b, KernelsModel::OpColumn).toString(), QStringLiteral("relu"));
    QCOMPARE(cell(m_sample.b, KernelsModel::OriginColumn).toString(), QStringLiteral("mutated"));
    QCOMPARE(cell(m_sample.b, KernelsModel::OperatorColumn).toString(), QStringLiteral("block-size"));
    QCOMPARE(cell(m_sample.b, KernelsModel::StatusColumn).toString(), QStringLiteral("correct"));
    QCOMPARE(cell(m_sample.b, KernelsModel::SpeedupColumn).toString(), QStringLiteral("10.00×"));
    QCOMPARE(cell(m_sample.b, KernelsModel::SpeedupColumn, KernelsModel::SortRole).toDouble(), 10.0);
    QCOMPARE(cell(m_sample.b, KernelsModel::GpuColumn).toString(), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(cell(m_sample.b, KernelsModel::MedianColumn).toString(), QStringLiteral("0.1000"));
    QCOMPARE(cell(m_sample.b, KernelsModel::FlagsColumn).toString(), QStringLiteral("1"));
    QCOMPARE(cell(m_sample.b, KernelsModel::VerdictColumn).toString(), QStringLiteral("rejected"));
    QCOMPARE(cell(m_sample.b, KernelsModel::VerdictColumn, Qt::ToolTipRole).toString(),
             QStringLiteral("suspicious-timing"));
    QCOMPARE(cell(m_sample.b, KernelsModel::DescriptionColumn).toString(), QStringLiteral("vectorised float4 loads"));

    QCOMPARE(cell(m_sample.c, KernelsModel::StatusColumn).toString(), QStringLiteral("compile error"));
    QCOMPARE(cell(m_sample.c, KernelsModel::SpeedupColumn).toString(), QString());
    QCOMPARE(cell(m_sample.d, KernelsModel::StatusColumn).toString(), QStringLiteral("not evaluated"));
    QCOMPARE(cell(m_sample.d, KernelsModel::MedianColumn).toString(), QString());
    QCOMPARE(cell(m_sample.d, KernelsModel::FlagsColumn).toString(), QString());
    QCOMPARE(cell(m_sample.d, KernelsModel::VerdictColumn).toString(), QString());
    QCOMPARE(cell(m_sample.e, KernelsModel::VerdictColumn).toString(), QStringLiteral("accepted"));
    QCOMPARE(cell(m_sample.e, KernelsModel::SpeedupColumn).toString(), QStringLiteral("1.50×"));
    QCOMPARE(cell(m_sample.e, KernelsModel::OriginColumn).toString(), QStringLiteral("manual"));
    QVERIFY(cell(m_sample.c, KernelsModel::StatusColumn, Qt::ForegroundRole).isValid());
    QVERIFY(!cell(m_sample.d, KernelsModel::StatusColumn, Qt::ForegroundRole).isValid());
}

void TestKernelsModel::sortsNumbersAsNumbers_data()
{
    QTest::addColumn<int>("column");
    QTest::addColumn<int>("order");
    QTest::addColumn<QStringList>("leading"); // The first rows, in order; the rest have no value.

    // Text sorting would put "10.00×" before "2.00×" and "0.1000" after "0.5000" only by accident.
    QTest::newRow("speedup descending") << int(KernelsModel::SpeedupColumn) << int(Qt::DescendingOrder)
                                        << QStringList{q(m_sample.b), q(m_sample.a), q(m_sample.e)};
    QTest::newRow("speedup ascending puts unmeasured first")
        << int(KernelsModel::SpeedupColumn) << int(Qt::AscendingOrder) << QStringList{};
    QTest::newRow("median ascending") << int(KernelsModel::MedianColumn) << int(Qt::AscendingOrder)
                                      << QStringList{q(m_sample.b), q(m_sample.a), q(m_sample.e)};
    QTest::newRow("created descending") << int(KernelsModel::CreatedColumn) << int(Qt::DescendingOrder)
                                        << QStringList{q(m_sample.e), q(m_sample.d), q(m_sample.c), q(m_sample.b),
                                                       q(m_sample.a)};
    QTest::newRow("flags descending") << int(KernelsModel::FlagsColumn) << int(Qt::DescendingOrder)
                                      << QStringList{q(m_sample.b)};
}

void TestKernelsModel::sortsNumbersAsNumbers()
{
    QFETCH(int, column);
    QFETCH(int, order);
    QFETCH(QStringList, leading);
    m_proxy->clearFilters();
    m_proxy->sort(column, Qt::SortOrder(order));
    const QStringList ids = proxyIds();
    QCOMPARE(ids.size(), 5);
    if (leading.isEmpty()) {
        // Ascending speedup: the two kernels without a correct result come first, then 1.5, 2, 10.
        QCOMPARE(ids.mid(2), (QStringList{q(m_sample.e), q(m_sample.a), q(m_sample.b)}));
        QCOMPARE(QSet<QString>(ids.begin(), ids.begin() + 2), (QSet<QString>{q(m_sample.c), q(m_sample.d)}));
    } else {
        QCOMPARE(ids.mid(0, leading.size()), leading);
    }
}

void TestKernelsModel::filters_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("op");
    QTest::addColumn<QString>("status");
    QTest::addColumn<bool>("flagged");
    QTest::addColumn<QStringList>("expected");

    const QString none;
    QTest::newRow("no filter") << none << none << none << false
                               << QStringList{q(m_sample.a), q(m_sample.b), q(m_sample.c), q(m_sample.d),
                                              q(m_sample.e)};
    QTest::newRow("description") << "FLOAT4" << none << none << false << QStringList{q(m_sample.b)};
    QTest::newRow("op name in text") << "softmax" << none << none << false << QStringList{q(m_sample.d), q(m_sample.e)};
    QTest::newRow("id prefix") << q(m_sample.c.substr(0, 8)) << none << none << false << QStringList{q(m_sample.c)};
    QTest::newRow("id tail") << q(m_sample.e.substr(40)) << none << none << false << QStringList{q(m_sample.e)};
    QTest::newRow("operator") << "unroll" << none << none << false << QStringList{q(m_sample.c)};
    QTest::newRow("no match") << "no such kernel" << none << none << false << QStringList{};
    QTest::newRow("op") << none << "softmax" << none << false << QStringList{q(m_sample.d), q(m_sample.e)};
    QTest::newRow("correct") << none << none << "correct" << false
                             << QStringList{q(m_sample.a), q(m_sample.b), q(m_sample.e)};
    QTest::newRow("compile error") << none << none << "compile-error" << false << QStringList{q(m_sample.c)};
    QTest::newRow("not evaluated") << none << none << KernelsProxyModel::kNotEvaluated << false
                                   << QStringList{q(m_sample.d)};
    QTest::newRow("flagged") << none << none << none << true << QStringList{q(m_sample.b)};
    QTest::newRow("op and status") << none << "relu"
                                   << "correct" << false << QStringList{q(m_sample.a), q(m_sample.b)};
    QTest::newRow("op, status and text") << "naive"
                                         << "relu"
                                         << "correct" << false << QStringList{q(m_sample.a)};
}

void TestKernelsModel::filters()
{
    QFETCH(QString, text);
    QFETCH(QString, op);
    QFETCH(QString, status);
    QFETCH(bool, flagged);
    QFETCH(QStringList, expected);
    m_proxy->clearFilters();
    m_proxy->sort(KernelsModel::CreatedColumn, Qt::AscendingOrder);
    m_proxy->setTextFilter(text);
    m_proxy->setOpFilter(op);
    m_proxy->setStatusFilter(status);
    m_proxy->setOnlyFlagged(flagged);
    QCOMPARE(proxyIds(), expected);
    m_proxy->clearFilters();
    QCOMPARE(m_proxy->rowCount(), 5);
}

void TestKernelsModel::inductorAndPrecisionColumns()
{
    // The sample (older evaluations: eager only) plus kernels measured against eager and Inductor.
    const QString path = m_dir.filePath(QStringLiteral("baselines.kxdb"));
    const test::SampleArchive old = test::SampleArchive::write(path);
    const test::BaselineArchive sample = test::BaselineArchive::addTo(path);
    KernelsModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    auto archive = Archive::open(path.toStdString(), ArchiveMode::ReadOnly);
    QVERIFY2(archive.hasValue(), archive ? "" : archive.error().message.c_str());
    model.setSummaries((*archive)->candidateSummaries());
    QCOMPARE(model.rowCount(), 8);
    QCOMPARE(model.headerData(KernelsModel::InductorSpeedupColumn, Qt::Horizontal).toString(),
             QStringLiteral("× Inductor"));
    QCOMPARE(model.headerData(KernelsModel::PrecisionColumn, Qt::Horizontal).toString(), QStringLiteral("Precision"));
    QCOMPARE(KernelsModel::InductorSpeedupColumn, KernelsModel::SpeedupColumn + 1); // Next to × eager.

    const auto cell = [&model](const std::string &id, int column, int role = Qt::DisplayRole) {
        const int row = model.rowOf(q(id));
        return row < 0 ? QVariant() : model.index(row, column).data(role);
    };
    const QBrush marked(BaselineFormat::losesToInductorColor());

    // Beats eager, loses to Inductor: marked on both speedups, in the shared words.
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::SpeedupColumn).toString(), QStringLiteral("2.00×"));
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::InductorSpeedupColumn).toString(), QStringLiteral("0.80×"));
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::InductorSpeedupColumn, KernelsModel::SortRole).toDouble(), 0.8);
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::PrecisionColumn).toString(), QStringLiteral("tf32"));
    QVERIFY(cell(sample.losesToInductor, KernelsModel::PrecisionColumn, Qt::ToolTipRole)
                .toString()
                .contains(QLatin1String("TF32")));
    QCOMPARE(cell(sample.losesToInductor, 0, KernelsModel::StandingRole).toString(),
             QString::fromStdString(standingText(2.0, 0.8)));
    QCOMPARE(cell(sample.losesToInductor, 0, KernelsModel::StandingRole).toString(),
             QStringLiteral("beats eager, loses to Inductor"));
    QCOMPARE(cell(sample.losesToInductor, 0, KernelsModel::LosesToInductorRole).toBool(), true);
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::InductorSpeedupColumn, Qt::ForegroundRole).value<QBrush>(),
             marked);
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::SpeedupColumn, Qt::ForegroundRole).value<QBrush>(), marked);
    QCOMPARE(cell(sample.losesToInductor, KernelsModel::InductorSpeedupColumn, Qt::ToolTipRole).toString(),
             QStringLiteral("beats eager, loses to Inductor"));

    // Beats both: not marked.
    QCOMPARE(cell(sample.beatsBoth, KernelsModel::SpeedupColumn).toString(), QStringLiteral("5.00×"));
    QCOMPARE(cell(sample.beatsBoth, KernelsModel::InductorSpeedupColumn).toString(), QStringLiteral("2.50×"));
    QCOMPARE(cell(sample.beatsBoth, 0, KernelsModel::StandingRole).toString(),
             QStringLiteral("beats eager and Inductor"));
    QCOMPARE(cell(sample.beatsBoth, 0, KernelsModel::LosesToInductorRole).toBool(), false);
    QVERIFY(!cell(sample.beatsBoth, KernelsModel::InductorSpeedupColumn, Qt::ForegroundRole).isValid());

    // torch.compile failed: no Inductor speedup, the policy still shown.
    QCOMPARE(cell(sample.inductorFailed, KernelsModel::InductorSpeedupColumn).toString(), QString());
    QCOMPARE(cell(sample.inductorFailed, KernelsModel::InductorSpeedupColumn, KernelsModel::SortRole).toDouble(), -1.0);
    QCOMPARE(cell(sample.inductorFailed, KernelsModel::PrecisionColumn).toString(), QStringLiteral("fp32"));
    QCOMPARE(cell(sample.inductorFailed, 0, KernelsModel::StandingRole).toString(),
             QStringLiteral("beats eager (no Inductor time)"));

    // Older evaluations: fp32, no Inductor speedup; kernels without a result have no policy either.
    QCOMPARE(cell(old.b, KernelsModel::InductorSpeedupColumn).toString(), QString());
    QCOMPARE(cell(old.b, KernelsModel::PrecisionColumn).toString(), QStringLiteral("fp32"));
    QCOMPARE(cell(old.c, KernelsModel::InductorSpeedupColumn).toString(), QString());
    QCOMPARE(cell(old.d, KernelsModel::PrecisionColumn).toString(), QString());
    QCOMPARE(cell(old.c, 0, KernelsModel::StandingRole).toString(), QString());

    // Sorted by the speedup over Inductor: measured ones first, fastest first.
    KernelsProxyModel proxy;
    proxy.setSourceModel(&model);
    proxy.sort(KernelsModel::InductorSpeedupColumn, Qt::DescendingOrder);
    QCOMPARE(proxy.index(0, 0).data(KernelsModel::CandidateIdRole).toString(), q(sample.beatsBoth));
    QCOMPARE(proxy.index(1, 0).data(KernelsModel::CandidateIdRole).toString(), q(sample.losesToInductor));
}

void TestKernelsModel::pageLoadsOffThread()
{
    KernelsPage page;
    new QAbstractItemModelTester(page.model(), QAbstractItemModelTester::FailureReportingMode::QtTest, &page);
    QSignalSpy loaded(&page, &KernelsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QVERIFY(page.isLoading());
    QTRY_COMPARE(loaded.size(), 1);
    QCOMPARE(loaded.first().first().toInt(), 5);
    QCOMPARE(page.model()->rowCount(), 5);
    QVERIFY(!page.isLoading());

    // A reload keeps the selected kernel selected.
    QVERIFY(page.selectCandidate(q(m_sample.c)));
    QCOMPARE(page.currentCandidateId(), q(m_sample.c));
    page.reload();
    QTRY_COMPARE(loaded.size(), 2);
    QCOMPARE(page.currentCandidateId(), q(m_sample.c));

    // Selecting a kernel the filters hide clears the filters.
    page.proxy()->setOpFilter(QStringLiteral("softmax"));
    QVERIFY(page.selectCandidate(q(m_sample.a)));
    QCOMPARE(page.proxy()->opFilter(), QString());
    QCOMPARE(page.currentCandidateId(), q(m_sample.a));
    QVERIFY(!page.selectCandidate(QStringLiteral("not-a-candidate")));
}

void TestKernelsModel::pageDropsStaleLoads()
{
    const QString other = m_dir.filePath(QStringLiteral("other.kxdb"));
    {
        auto archive = test::openWritable(other);
        Transaction tx = archive->begin();
        archive->putOp(tx, test::makeOp("gelu"));
        archive->addCandidate(
            tx, test::makeCandidate("gelu", "__global__ void g() {}", Origin::Translated, "translate", "gelu", 1));
        tx.commit();
    }
    KernelsPage page;
    QSignalSpy loaded(&page, &KernelsPage::loaded);
    // Both reads wait behind a held task on the one thread of the pool, so the first is still in flight when the
    // second supersedes it (a read that finished first was delivered at once and counted twice).
    QThreadPool *pool = QThreadPool::globalInstance();
    const int threads = pool->maxThreadCount();
    pool->waitForDone();
    pool->setMaxThreadCount(1);
    QSemaphore hold;
    pool->start([&hold] { hold.acquire(); });
    page.setArchive(archiveRef(m_path));
    page.setArchive(archiveRef(other)); // Supersedes the first load before it can be delivered.
    hold.release();
    QTRY_COMPARE(loaded.size(), 1);
    pool->setMaxThreadCount(threads);
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QCOMPARE(loaded.size(), 1);
    QCOMPARE(page.model()->rowCount(), 1);
    QCOMPARE(page.model()->opNames(), QStringList{QStringLiteral("gelu")});
}

// Closing the archive while its kernels are being read: they must not fill the page afterwards.
void TestKernelsModel::pageDropsTheLoadOfAClosedArchive()
{
    KernelsPage page;
    QSignalSpy loaded(&page, &KernelsPage::loaded);
    page.setArchive(archiveRef(m_path));
    QVERIFY(page.isLoading());
    page.setArchive({});
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QCOMPARE(loaded.size(), 0);
    QCOMPARE(page.model()->rowCount(), 0);
    QVERIFY(!page.isLoading());
}

void TestKernelsModel::pageReportsUnreadableArchive()
{
    const QString bogus = m_dir.filePath(QStringLiteral("bogus.kxdb"));
    QFile file(bogus);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write("this is not an archive");
    file.close();

    KernelsPage page;
    QSignalSpy failed(&page, &KernelsPage::loadFailed);
    page.setArchive(archiveRef(bogus));
    QTRY_COMPARE(failed.size(), 1);
    QVERIFY(failed.first().first().toString().contains(QLatin1String("not a Kernel Explorer archive")));
    QCOMPARE(page.model()->rowCount(), 0);
    QVERIFY(!page.isLoading());
}

QTEST_MAIN(TestKernelsModel)
#include "tst_kernelsmodel.moc"
