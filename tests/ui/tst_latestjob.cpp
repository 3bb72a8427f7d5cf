// Latest job wins: the continuation of a replaced or invalidated job does not run, independent streams do not
// disturb each other, and a guarded continuation works with QFuture::then as the pages use it.
#include "ui/common/latestjob.h"

#include <QFuture>
#include <QSignalSpy>
#include <QTest>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>

#include <memory>

using namespace kx::ui;

class TestLatestJob : public QObject
{
    Q_OBJECT

private slots:
    void supersededJobDoesNotDeliver();
    void invalidateDropsTheCurrentJob();
    void independentJobsDoNotInterfere();
    void ticketTakenBeforeTheJobStarts();
    void argumentsReachTheCallback();
    void futureContinuationsOfReplacedJobsAreDropped();
};

void TestLatestJob::supersededJobDoesNotDeliver()
{
    LatestJob job;
    QStringList delivered;
    auto first = job.guard([&delivered](const QString &result) { delivered << result; });
    auto second = job.guard([&delivered](const QString &result) { delivered << result; });
    // The first result arrives after the second job started, the second one after that.
    first(QStringLiteral("first"));
    second(QStringLiteral("second"));
    QCOMPARE(delivered, QStringList{QStringLiteral("second")});
}

void TestLatestJob::invalidateDropsTheCurrentJob()
{
    LatestJob job;
    const LatestJob::Ticket ticket = job.start();
    QVERIFY(job.isCurrent(ticket));
    int runs = 0;
    auto callback = job.guard([&runs] { ++runs; });
    QVERIFY(!job.isCurrent(ticket));
    job.invalidate();
    callback();
    QCOMPARE(runs, 0);
    // A job started after the invalidation delivers again.
    job.guard([&runs] { ++runs; })();
    QCOMPARE(runs, 1);
}

void TestLatestJob::independentJobsDoNotInterfere()
{
    LatestJob list;
    LatestJob details;
    QStringList delivered;
    auto listDone = list.guard([&delivered](int rows) { delivered << QStringLiteral("list %1").arg(rows); });
    auto detailsDone = details.guard([&delivered](int rows) { delivered << QStringLiteral("details %1").arg(rows); });
    // The details stream moves on twice; the list's job is still its latest.
    details.start();
    details.invalidate();
    listDone(3);
    detailsDone(4);
    QCOMPARE(delivered, QStringList{QStringLiteral("list 3")});
}

void TestLatestJob::ticketTakenBeforeTheJobStarts()
{
    LatestJob job;
    int delivered = 0;
    const LatestJob::Ticket ticket = job.start();
    auto callback = job.guard(ticket, [&delivered](int value) { delivered = value; });
    callback(7);
    QCOMPARE(delivered, 7);
    const LatestJob::Ticket stale = job.start() - 1;
    job.guard(stale, [&delivered](int value) { delivered = value; })(8);
    QCOMPARE(delivered, 7);
}

void TestLatestJob::argumentsReachTheCallback()
{
    LatestJob job;
    // Taken by value, a result is moved through the guard rather than copied.
    int value = 0;
    job.guard([&value](std::unique_ptr<int> result) { value = *result; })(std::make_unique<int>(42));
    QCOMPARE(value, 42);
    QString text;
    job.guard([&text](const QString &first, int second) { text = first + QString::number(second); })(
        QStringLiteral("run "), 5);
    QCOMPARE(text, QStringLiteral("run 5"));
}

void TestLatestJob::futureContinuationsOfReplacedJobsAreDropped()
{
    QObject owner;
    LatestJob job;
    QList<int> delivered;
    // Three reads started one after the other; all finish before any result is delivered.
    for (int read = 1; read <= 3; ++read)
        QtConcurrent::run([read] {
            return read;
        }).then(&owner, job.guard([&delivered](int result) { delivered << result; }));
    QThreadPool::globalInstance()->waitForDone();
    QTRY_COMPARE(delivered, QList<int>{3});
    QCoreApplication::processEvents();
    QCOMPARE(delivered, QList<int>{3});

    // Invalidated while in flight: nothing arrives.
    QtConcurrent::run([] {
        return 4;
    }).then(&owner, job.guard([&delivered](const int &result) { delivered << result; }));
    job.invalidate();
    QThreadPool::globalInstance()->waitForDone();
    QCoreApplication::processEvents();
    QCoreApplication::processEvents();
    QCOMPARE(delivered, QList<int>{3});
}

QTEST_MAIN(TestLatestJob)
#include "tst_latestjob.moc"
