// How numbers, times and statuses are written, and that the German translation is compiled in.
#include "ui/common/format.h"

#include <QDir>
#include <QLocale>
#include <QTest>
#include <QTranslator>

using namespace kx;
using namespace kx::ui;

class TestFormat : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { QLocale::setDefault(QLocale::c()); }
    void milliseconds_data();
    void milliseconds();
    void speedup();
    void modelUsage_data();
    void modelUsage();
    void statuses();
    void paths();
    void germanTranslationIsBuiltIn();
};

void TestFormat::milliseconds_data()
{
    QTest::addColumn<double>("value");
    QTest::addColumn<QString>("text");
    QTest::newRow("microseconds") << 0.012346 << "0.01235";
    QTest::newRow("sub-millisecond") << 0.5 << "0.5000";
    QTest::newRow("milliseconds") << 12.3456 << "12.35";
    QTest::newRow("large") << 12345.6 << "12346";
    QTest::newRow("zero") << 0.0 << "0";
}

void TestFormat::milliseconds()
{
    QFETCH(double, value);
    QFETCH(QString, text);
    QCOMPARE(Format::ms(value), text);
}

void TestFormat::speedup()
{
    QCOMPARE(Format::speedup(3.4219), QStringLiteral("3.42×"));
    QCOMPARE(Format::speedup(0.5), QStringLiteral("0.50×"));
    QCOMPARE(Format::speedup(250.4), QStringLiteral("250×"));
}

void TestFormat::modelUsage_data()
{
    // The C locale (initTestCase) writes no group separators.
    QTest::addColumn<qint64>("promptTokens");
    QTest::addColumn<qint64>("completionTokens");
    QTest::addColumn<double>("cost");
    QTest::addColumn<QString>("text");
    QTest::newRow("no prices") << qint64(1200) << qint64(340) << 0.0 << "1200 prompt + 340 completion tokens";
    QTest::newRow("cents") << qint64(1234) << qint64(567) << 0.0071
                           << "1234 prompt + 567 completion tokens · est. cost 0.0071";
    QTest::newRow("a connection test") << qint64(12) << qint64(1) << 0.000032
                                       << "12 prompt + 1 completion tokens · est. cost 0.000032";
    QTest::newRow("a long run") << qint64(2500000) << qint64(800000) << 14.256
                                << "2500000 prompt + 800000 completion tokens · est. cost 14.26";
}

void TestFormat::modelUsage()
{
    QFETCH(qint64, promptTokens);
    QFETCH(qint64, completionTokens);
    QFETCH(double, cost);
    QFETCH(QString, text);
    QCOMPARE(Format::modelUsage(promptTokens, completionTokens, cost), text);
}

void TestFormat::statuses()
{
    QCOMPARE(Format::status(EvalStatus::CompileError), QStringLiteral("compile error"));
    QCOMPARE(Format::status(std::optional<EvalStatus>()), QStringLiteral("not evaluated"));
    QCOMPARE(Format::verdict(std::optional<bool>()), QString());
    QCOMPARE(Format::verdict(true), QStringLiteral("accepted"));
    QCOMPARE(Format::shortId("0123456789abcdef"), QStringLiteral("0123456789ab"));
    // Every status has its own readable colour, distinct from "correct" when it is a failure.
    for (EvalStatus status : {EvalStatus::Incorrect, EvalStatus::CompileError, EvalStatus::Fault, EvalStatus::Timeout})
        QVERIFY(Format::statusColor(status) != Format::statusColor(EvalStatus::Correct));
}

void TestFormat::paths()
{
    const QString home = QDir::homePath();
    QCOMPARE(Format::path(QString()), QString());
#ifdef Q_OS_UNIX
    if (home != QDir::rootPath()) {
        QCOMPARE(Format::path(home + QStringLiteral("/kernels/relu.kxdb")), QStringLiteral("~/kernels/relu.kxdb"));
        QCOMPARE(Format::path(home), QStringLiteral("~"));
        // Only whole folder names: "/home/ann2" is not under "/home/ann".
        QCOMPARE(Format::path(home + QStringLiteral("2/relu.kxdb")), home + QStringLiteral("2/relu.kxdb"));
    }
    QCOMPARE(Format::path(QStringLiteral("/srv/kernels/relu.kxdb")), QStringLiteral("/srv/kernels/relu.kxdb"));
#endif
}

void TestFormat::germanTranslationIsBuiltIn()
{
    QTranslator translator;
    QVERIFY(translator.load(QStringLiteral(":/i18n/kernel-explorer_de.qm")));
    QCOMPARE(translator.translate("kx::ui::MainWindow", "&File"), QStringLiteral("&Datei"));
    QCOMPARE(translator.translate("kx::ui::Format", "not evaluated"), QStringLiteral("nicht bewertet"));
    QCoreApplication::installTranslator(&translator);
    QCOMPARE(Format::status(EvalStatus::Correct), QStringLiteral("korrekt"));
    QCoreApplication::removeTranslator(&translator);
    QCOMPARE(Format::status(EvalStatus::Correct), QStringLiteral("correct"));
}

QTEST_MAIN(TestFormat)
#include "tst_format.moc"
