// kernel-explorer: the GUI main. Parses the command line and shows the main window; everything else is in kxui.
#include "ui/window/mainwindow.h"
#include "ui/window/screenshot.h"
#include "ui/window/selftest.h"

#include "core/version.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QLibraryInfo>
#include <QLocale>
#include <QTranslator>

#include <cstdio>

int main(int argc, char *argv[])
{
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("KernelExplorer"));
    QApplication::setApplicationName(QStringLiteral("kernel-explorer"));
    QApplication::setApplicationDisplayName(QStringLiteral("Kernel Explorer"));
    QApplication::setApplicationVersion(QString::fromLatin1(kx::kVersion));
    // The desktop entry and AppStream id (packaging/): Wayland compositors match windows to it.
    QApplication::setDesktopFileName(QStringLiteral("org.kernelexplorer.KernelExplorer"));

    QTranslator qtTranslator;
    if (qtTranslator.load(QLocale(), QStringLiteral("qtbase"), QStringLiteral("_"),
                          QLibraryInfo::path(QLibraryInfo::TranslationsPath)))
        QApplication::installTranslator(&qtTranslator);
    QTranslator appTranslator;
    if (appTranslator.load(QLocale(), QStringLiteral("kernel-explorer"), QStringLiteral("_"), QStringLiteral(":/i18n")))
        QApplication::installTranslator(&appTranslator);

    QCommandLineParser parser;
    parser.setApplicationDescription(
        QApplication::translate("main", "Browse the kernel archive: every CUDA kernel evaluated, with its results."));
    parser.addHelpOption();
    parser.addVersionOption();
    const QCommandLineOption selfTest(QStringLiteral("self-test"),
                                      QApplication::translate("main", "Check that the application works, then exit."));
    const QCommandLineOption screenshot(
        QStringLiteral("screenshot"),
        QApplication::translate("main", "Save an image of the main window showing ARCHIVE, then exit."),
        QApplication::translate("main", "image"));
    const QCommandLineOption screenshotPage(
        QStringLiteral("page"),
        QApplication::translate("main",
                                "With --screenshot: the page to show (kernels, lineage, diff, plots or review)."),
        QApplication::translate("main", "page"));
    const QCommandLineOption screenshotCandidate(
        QStringLiteral("candidate"),
        QApplication::translate("main",
                                "With --screenshot: the kernel to select (an id or a unique prefix; default: the "
                                "fastest)."),
        QApplication::translate("main", "id"));
    parser.addOption(selfTest);
    parser.addOption(screenshot);
    parser.addOption(screenshotPage);
    parser.addOption(screenshotCandidate);
    parser.addPositionalArgument(QStringLiteral("archive"),
                                 QApplication::translate("main", "The archive to open (.kxdb)."),
                                 QStringLiteral("[archive]"));
    parser.process(app);
    const QStringList arguments = parser.positionalArguments();
    if (arguments.size() > 1) {
        std::fprintf(stderr, "%s\n", qPrintable(QApplication::translate("main", "Give at most one archive.")));
        return 2;
    }
    const QString archive = arguments.value(0);

    if (parser.isSet(selfTest))
        return kx::ui::runSelfTest();
    if (parser.isSet(screenshot)) {
        if (archive.isEmpty()) {
            std::fprintf(stderr, "%s\n", qPrintable(QApplication::translate("main", "--screenshot needs an archive.")));
            return 2;
        }
        return kx::ui::takeScreenshot(archive, parser.value(screenshot), parser.value(screenshotPage),
                                      parser.value(screenshotCandidate));
    }

    kx::ui::MainWindow window;
    window.show();
    if (archive.isEmpty())
        window.openStartupArchive();
    else
        window.openArchive(archive);
    return app.exec();
}
