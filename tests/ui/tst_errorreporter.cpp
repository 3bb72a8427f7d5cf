// How the window shows a failure: its kind picks the heading and the icon, and a cancel is not shown at all.
#include "ui/window/errorreporter.h"

#include <QApplication>
#include <QMessageBox>
#include <QTest>
#include <QTimer>

using namespace kx;
using namespace kx::ui;

class TestErrorReporter : public QObject
{
    Q_OBJECT

private slots:
    void eachKindHasItsLook();
    void reporterHeadsTheMessageWithTheKind();
    void messageBoxShowsTheKind();
};

namespace {

struct ShownBox
{
    bool shown = false;
    QMessageBox::Icon icon = QMessageBox::NoIcon;
    QString title;
    QString text;
    QString informativeText;
};

// Closes the message box that showErrorBox() opens, noting what it showed; nothing when none opens.
ShownBox showAndClose(const QString &title, const Error &error)
{
    ShownBox box;
    QTimer closer;
    closer.setInterval(20);
    QObject::connect(&closer, &QTimer::timeout, [&box] {
        if (auto *shown = qobject_cast<QMessageBox *>(QApplication::activeModalWidget())) {
            box = {true, shown->icon(), shown->windowTitle(), shown->text(), shown->informativeText()};
            shown->accept();
        }
    });
    closer.start();
    showErrorBox(nullptr, title, error);
    return box;
}

} // namespace

void TestErrorReporter::eachKindHasItsLook()
{
    QVERIFY(!errorLook(ErrorKind::Cancelled)); // the user's own doing: not an error to show
    const auto failed = errorLook(ErrorKind::Failed);
    QVERIFY(failed);
    QVERIFY(failed->heading.isEmpty());
    QCOMPARE(failed->icon, QMessageBox::Critical);
    QCOMPARE(errorLook(ErrorKind::BadInput)->heading, QStringLiteral("Invalid input"));
    QCOMPARE(errorLook(ErrorKind::NoGpu)->heading, QStringLiteral("No GPU"));
    QCOMPARE(errorLook(ErrorKind::NoGpu)->icon, QMessageBox::Information);
    QCOMPARE(errorLook(ErrorKind::Unavailable)->heading, QStringLiteral("Not available"));
    QCOMPARE(errorLook(ErrorKind::Unavailable)->icon, QMessageBox::Warning);
}

void TestErrorReporter::reporterHeadsTheMessageWithTheKind()
{
    ErrorReporter reporter(nullptr);
    QStringList reports;
    reporter.setHandler([&reports](const QString &title, const QString &message) { reports << title + "|" + message; });
    reporter.report(QStringLiteral("Open PyTorch Op"), Error::unavailable("Python 3 was not found"));
    reporter.report(QStringLiteral("Open Archive"), Error::badInput("not an SQLite database"));
    reporter.report(QStringLiteral("Search"), Error::noGpu("no CUDA device present"));
    reporter.report(QStringLiteral("Import"), Error::cancelled("cancelled"));
    reporter.report(QStringLiteral("Verdict"), Error{"the archive is busy"});
    reporter.report(QStringLiteral("Export Kernel"), QStringLiteral("cannot write"));
    QCOMPARE(reports, (QStringList{QStringLiteral("Open PyTorch Op|Not available: Python 3 was not found"),
                                   QStringLiteral("Open Archive|Invalid input: not an SQLite database"),
                                   QStringLiteral("Search|No GPU: no CUDA device present"),
                                   QStringLiteral("Verdict|the archive is busy"),
                                   QStringLiteral("Export Kernel|cannot write")}));
}

void TestErrorReporter::messageBoxShowsTheKind()
{
    const ShownBox noGpu = showAndClose(QStringLiteral("Evaluate"), Error::noGpu("no CUDA device present"));
    QVERIFY(noGpu.shown);
    QCOMPARE(noGpu.icon, QMessageBox::Information);
    QCOMPARE(noGpu.title, QStringLiteral("Evaluate"));
    QCOMPARE(noGpu.text, QStringLiteral("No GPU"));
    QCOMPARE(noGpu.informativeText, QStringLiteral("no CUDA device present"));

    const ShownBox failed = showAndClose(QStringLiteral("Verdict"), Error{"the archive is busy"});
    QVERIFY(failed.shown);
    QCOMPARE(failed.icon, QMessageBox::Critical);
    QCOMPARE(failed.text, QStringLiteral("the archive is busy"));
    QVERIFY(failed.informativeText.isEmpty());

    QVERIFY(!showAndClose(QStringLiteral("Import"), Error::cancelled("The import was cancelled.")).shown);
}

QTEST_MAIN(TestErrorReporter)
#include "tst_errorreporter.moc"
