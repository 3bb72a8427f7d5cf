// Runs the real kx executable, as scripts do, and checks output and exit codes.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

namespace {

struct Result
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Result runKx(const QStringList &arguments, const QString &archiveEnv = {})
{
    QProcess process;
    auto environment = QProcessEnvironment::systemEnvironment();
    if (!archiveEnv.isEmpty())
        environment.insert("KX_ARCHIVE", archiveEnv);
    process.setProcessEnvironment(environment);
    process.start(KX_CLI, arguments);
    if (!process.waitForFinished(60000))
        return {};
    return {process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1, process.readAllStandardOutput(),
            process.readAllStandardError()};
}

const QString kSample = QStringLiteral(KX_TEST_DATA_DIR "/sample-archive.json");

} // namespace

class TestCli : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void printsVersionAndHelp()
    {
        const auto version = runKx({"--version"});
        QCOMPARE(version.exitCode, 0);
        QVERIFY(version.out.startsWith("kx "));
        const auto help = runKx({"--help"});
        QCOMPARE(help.exitCode, 0);
        QVERIFY(help.out.contains("archive"));
    }

    void usageErrorsExitTwo_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::newRow("nothing") << QStringList{};
        QTest::newRow("unknown command") << QStringList{"frobnicate"};
        QTest::newRow("archive without verb") << QStringList{"archive"};
        QTest::newRow("show without id") << QStringList{"archive", "show"};
        QTest::newRow("bad limit") << QStringList{"archive", "list", "--limit", "-3"};
    }

    void usageErrorsExitTwo()
    {
        QFETCH(QStringList, arguments);
        const auto result = runKx(arguments);
        QCOMPARE(result.exitCode, 2);
        QVERIFY(!result.err.isEmpty());
    }

    void importListShowExport()
    {
        QTemporaryDir dir;
        const QString archive = dir.filePath("a.kxdb");
        const auto imported = runKx({"archive", "import", "-a", archive, kSample});
        QCOMPARE(imported.exitCode, 0);
        QVERIFY(imported.out.contains("5 candidate(s)"));

        const auto info = runKx({"archive", "info", "-a", archive, "--json"});
        QCOMPARE(info.exitCode, 0);
        const auto infoJson = QJsonDocument::fromJson(info.out).object();
        QCOMPARE(infoJson["candidates"].toInt(), 5);
        QCOMPARE(infoJson["evaluations"].toInt(), 8);

        const auto list = runKx({"archive", "list", "-a", archive, "--json", "--flagged"});
        QCOMPARE(list.exitCode, 0);
        const auto rows = QJsonDocument::fromJson(list.out).array();
        QCOMPARE(rows.size(), 1);
        const QString id = rows.first().toObject()["id"].toString();

        const auto show = runKx({"archive", "show", "-a", archive, id.left(8)});
        QCOMPARE(show.exitCode, 0);
        QVERIFY(show.out.contains("flag impossible"));
        QVERIFY(show.out.contains("__global__"));

        const QString first = dir.filePath("first.json");
        QCOMPARE(runKx({"archive", "export", "-a", archive, "-o", first}).exitCode, 0);
        const QString copy = dir.filePath("copy.kxdb");
        QCOMPARE(runKx({"archive", "import", "-a", copy, first}).exitCode, 0);
        const auto second = runKx({"archive", "export", "-a", copy});
        QCOMPARE(second.exitCode, 0);
        QFile firstFile(first);
        QVERIFY(firstFile.open(QIODevice::ReadOnly));
        QCOMPARE(second.out, firstFile.readAll());
    }

    void defaultArchiveComesFromEnvironment()
    {
        QTemporaryDir dir;
        const QString archive = dir.filePath("env.kxdb");
        QCOMPARE(runKx({"archive", "import", kSample}, archive).exitCode, 0);
        QVERIFY(QFile::exists(archive));
        QCOMPARE(runKx({"archive", "info"}, archive).exitCode, 0);
    }

    void badInputExitsThreeAndChangesNothing_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not json") << QByteArray("{ this is not json");
        QTest::newRow("not an export") << QByteArray(R"({"hello": 1})");
        QTest::newRow("truncated export") << QByteArray(R"({"format": "kernel-explorer-archive", "version": 1})");
    }

    void badInputExitsThreeAndChangesNothing()
    {
        QFETCH(QByteArray, content);
        QTemporaryDir dir;
        const QString archive = dir.filePath("a.kxdb");
        QCOMPARE(runKx({"archive", "import", "-a", archive, kSample}).exitCode, 0);
        const QString bad = dir.filePath("bad.json");
        QFile file(bad);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write(content);
        file.close();
        const auto result = runKx({"archive", "import", "-a", archive, bad});
        QCOMPARE(result.exitCode, 3);
        QVERIFY(result.err.startsWith("kx: "));
        const auto info = runKx({"archive", "info", "-a", archive, "--json"});
        QCOMPARE(QJsonDocument::fromJson(info.out).object()["candidates"].toInt(), 5);
    }

    void missingOrForeignArchivesExitThree()
    {
        QTemporaryDir dir;
        QCOMPARE(runKx({"archive", "info", "-a", dir.filePath("missing.kxdb")}).exitCode, 3);
        const QString text = dir.filePath("text.kxdb");
        QFile file(text);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("plain text");
        file.close();
        const auto result = runKx({"archive", "list", "-a", text});
        QCOMPARE(result.exitCode, 3);
        QVERIFY(result.err.contains("not an SQLite database"));
    }

    void searchesWithAWorkerCommand()
    {
        // The fake worker stands in for a GPU: the real engine, proposer, NVRTC and archive do the rest.
        QTemporaryDir dir;
        const QString archive = dir.filePath("search.kxdb");
        const auto search = runKx({"search", "gelu_tanh", "-a", archive, "--worker", KX_FAKE_WORKER,
                                   "--generations", "2", "--children", "3", "--seed", "4"});
        QVERIFY2(search.exitCode == 0, search.err.constData());
        QVERIFY(search.out.contains("new best"));
        const auto runs = QJsonDocument::fromJson(runKx({"runs", "-a", archive, "--json"}).out).array();
        QCOMPARE(runs.size(), 1);
        QCOMPARE(runs.first().toObject()["state"].toString(), QString("finished"));
        QVERIFY(runs.first().toObject()["candidates"].toInt() >= 4);
        const auto best = runKx({"best", "gelu_tanh", "-a", archive, "--json"});
        QCOMPARE(best.exitCode, 0);
        QCOMPARE(QJsonDocument::fromJson(best.out).array().size(), 1);

        // Continuing a finished run that reached its budget stops at once and changes nothing.
        const int before = runs.first().toObject()["candidates"].toInt();
        QCOMPARE(runKx({"resume", "1", "-a", archive, "--worker", KX_FAKE_WORKER}).exitCode, 0);
        const auto after = QJsonDocument::fromJson(runKx({"runs", "-a", archive, "--json"}).out).array();
        QCOMPARE(after.first().toObject()["candidates"].toInt(), before);
    }

    void searchWithoutAGpuExitsFour()
    {
        QTemporaryDir dir;
        const auto search = runKx({"search", "relu", "-a", dir.filePath("a.kxdb"), "--worker",
                                   QString(KX_FAKE_WORKER) + " --gpus 0"});
        QCOMPARE(search.exitCode, 4);
        QVERIFY(search.err.contains("no GPU"));
        QCOMPARE(runKx({"search", "no_such_op"}).exitCode, 3);
        QCOMPARE(runKx({"ops"}).exitCode, 0);
        const auto translated = runKx({"translate", "softmax"});
        QCOMPARE(translated.exitCode, 0);
        QVERIFY(translated.out.contains("softmax_kernel"));
    }

    void unknownCandidateFails()
    {
        QTemporaryDir dir;
        const QString archive = dir.filePath("a.kxdb");
        QCOMPARE(runKx({"archive", "import", "-a", archive, kSample}).exitCode, 0);
        const auto result = runKx({"archive", "show", "-a", archive, "ffffffff"});
        QCOMPARE(result.exitCode, 1);
        QVERIFY(result.err.contains("no candidate"));
    }
};

QTEST_GUILESS_MAIN(TestCli)
#include "tst_cli.moc"
