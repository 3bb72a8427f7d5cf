// A writer killed with SIGKILL at random points never damages the archive or loses a committed row.
#include "core/archive/archive.h"

#include <QProcess>
#include <QRandomGenerator>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

class TestArchiveCrash : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void survivesSigkillAtRandomPoints()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("crash.kxdb");
        QRandomGenerator random(20261122);
        long next = 0;
        long totalCommitted = 0;
        const int rounds = 30;
        for (int round = 0; round < rounds; ++round) {
            QProcess writer;
            writer.start(KX_ARCHIVE_WRITER, {path, QString::number(next)});
            QVERIFY2(writer.waitForStarted(), qPrintable(writer.errorString()));
            // Kill at a random moment: sometimes before the first commit, mostly in the middle of the loop.
            QTest::qWait(int(random.bounded(5, 120)));
            ::kill(pid_t(writer.processId()), SIGKILL);
            QVERIFY(writer.waitForFinished(5000));
            QCOMPARE(writer.exitStatus(), QProcess::CrashExit);

            long lastCommitted = -1;
            const auto lines = QString::fromUtf8(writer.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
            static const QRegularExpression committed("^committed (\\d+)$");
            for (const auto &line : lines)
                if (const auto match = committed.match(line); match.hasMatch())
                    lastCommitted = match.captured(1).toLong();

            auto archive = kx::Archive::open(path.toStdString());
            QVERIFY2(archive, archive ? "" : archive.error().message.c_str());
            QCOMPARE((*archive)->integrityCheck(), std::string("ok"));
            const auto stored = (*archive)->info().candidates;
            QCOMPARE((*archive)->info().evaluations, stored);
            // Every reported commit is there; at most the one in flight beyond it.
            if (lastCommitted >= 0)
                QVERIFY2(stored >= lastCommitted + 1, qPrintable(QStringLiteral("round %1: %2 stored, %3 reported")
                                                                     .arg(round).arg(stored).arg(lastCommitted + 1)));
            QVERIFY(stored >= totalCommitted);
            totalCommitted = stored;
            next = stored;
        }
        QVERIFY2(totalCommitted > rounds, "the writer should have committed rows in most rounds");
    }
};

QTEST_GUILESS_MAIN(TestArchiveCrash)
#include "tst_archivecrash.moc"
