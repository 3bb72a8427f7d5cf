// The German translation: lupdate finds no string that the .ts file lacks, every entry is finished and keeps
// the source's placeholders and accelerator, and the compiled .qm turns the main window German.
#include "ui/window/mainwindow.h"

#include <QAction>
#include <QDialogButtonBox>
#include <QFile>
#include <QLibraryInfo>
#include <QMenuBar>
#include <QProcess>
#include <QPushButton>
#include <QRegularExpression>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>
#include <QTranslator>
#include <QXmlStreamReader>

using namespace kx::ui;

namespace {

const QString kTsFile = QStringLiteral(KX_SOURCE_DIR "/translations/kernel-explorer_de.ts");

struct Message
{
    QString context, source, comment, translation, type;
    bool numerus = false;
    QStringList forms;
    QString key() const { return context + QLatin1Char('\x1f') + source + QLatin1Char('\x1f') + comment; }
};

QList<Message> readTs(const QString &path, QString *error)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = file.errorString();
        return {};
    }
    QList<Message> messages;
    QXmlStreamReader xml(&file);
    QString context;
    Message message;
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement())
            continue;
        const auto name = xml.name();
        if (name == QLatin1String("name")) {
            context = xml.readElementText();
        } else if (name == QLatin1String("message")) {
            message = {};
            message.context = context;
            message.numerus = xml.attributes().value(QLatin1String("numerus")) == QLatin1String("yes");
        } else if (name == QLatin1String("source")) {
            message.source = xml.readElementText();
        } else if (name == QLatin1String("comment")) {
            message.comment = xml.readElementText();
        } else if (name == QLatin1String("translation")) {
            message.type = xml.attributes().value(QLatin1String("type")).toString();
            if (message.numerus) {
                while (xml.readNextStartElement())
                    message.forms << xml.readElementText();
            } else {
                message.translation = xml.readElementText();
            }
            messages << message;
        }
    }
    if (xml.hasError())
        *error = xml.errorString();
    return messages;
}

/// %1 ... %99 and %n, sorted: a translation must use the same ones.
QStringList placeholders(const QString &text)
{
    static const QRegularExpression pattern(QStringLiteral("%(\\d+|n)"));
    QStringList found;
    for (const auto &match : pattern.globalMatch(text))
        found << match.captured(0);
    found.sort();
    found.removeDuplicates();
    return found;
}

/// Whether the text marks a keyboard accelerator ("&File"; "&&" is a literal ampersand).
bool hasAccelerator(QString text)
{
    text.remove(QStringLiteral("&&"));
    static const QRegularExpression accelerator(QStringLiteral("&[^\\s&;]"));
    static const QRegularExpression entity(QStringLiteral("&[a-z]+;"));
    text.remove(entity);
    return accelerator.match(text).hasMatch();
}

} // namespace

class TestTranslations : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void tsFileHasEverySourceString();
    void everyEntryIsTranslated();
    void mainWindowIsGerman();
    void qtsOwnButtonsAreGerman();

private:
    QTemporaryDir m_dir;
};

void TestTranslations::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
    QCoreApplication::setOrganizationName(QStringLiteral("KernelExplorerTests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_translations"));
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, m_dir.filePath(QStringLiteral("settings")));
}

void TestTranslations::tsFileHasEverySourceString()
{
    // lupdate over the same sources the build translates, into a copy: what it adds is what the file lacks,
    // what it drops is obsolete.
    const QString copy = m_dir.filePath(QStringLiteral("copy_de.ts"));
    QVERIFY(QFile::copy(kTsFile, copy));
    QProcess lupdate;
    lupdate.setProcessChannelMode(QProcess::MergedChannels);
    lupdate.start(QStringLiteral(KX_LUPDATE),
                  {QStringLiteral("-I"), QStringLiteral(KX_SOURCE_DIR), QStringLiteral("-no-obsolete"),
                   QStringLiteral("-locations"), QStringLiteral("none"), QStringLiteral(KX_SOURCE_DIR "/ui"),
                   QStringLiteral(KX_SOURCE_DIR "/app/kernel-explorer"), QStringLiteral("-ts"), copy});
    QVERIFY2(lupdate.waitForFinished(120000), qPrintable(lupdate.errorString()));
    const QString output = QString::fromLocal8Bit(lupdate.readAll());
    QVERIFY2(lupdate.exitStatus() == QProcess::NormalExit && lupdate.exitCode() == 0, qPrintable(output));
    // A tr() that lupdate files under the wrong class (it misreads some initialiser lists) is never found at
    // run time.
    QVERIFY2(!output.contains(QLatin1String("lacks Q_OBJECT")), qPrintable(output));

    QString error;
    const QList<Message> committed = readTs(kTsFile, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    const QList<Message> updated = readTs(copy, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QSet<QString> have, want;
    for (const Message &m : committed)
        have.insert(m.key());
    QStringList missing;
    for (const Message &m : updated) {
        want.insert(m.key());
        if (!have.contains(m.key()))
            missing << m.context + QStringLiteral(": ") + m.source;
    }
    QStringList obsolete;
    for (const Message &m : committed)
        if (!want.contains(m.key()))
            obsolete << m.context + QStringLiteral(": ") + m.source;
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("Not in the .ts file (run the update_translations "
                                                          "target and translate):\n")
                                           + missing.join(QLatin1Char('\n'))));
    QVERIFY2(obsolete.isEmpty(),
             qPrintable(QStringLiteral("Obsolete in the .ts file:\n") + obsolete.join(QLatin1Char('\n'))));
    QVERIFY(committed.size() > 500);
}

void TestTranslations::everyEntryIsTranslated()
{
    QString error;
    const QList<Message> messages = readTs(kTsFile, &error);
    QVERIFY2(error.isEmpty(), qPrintable(error));
    QStringList problems;
    for (const Message &m : messages) {
        const QString where = m.context + QStringLiteral(": ") + m.source;
        if (!m.type.isEmpty()) {
            problems << QStringLiteral("%1 (%2)").arg(where, m.type);
            continue;
        }
        const QStringList texts = m.numerus ? m.forms : QStringList{m.translation};
        if (texts.isEmpty() || (m.numerus && texts.size() != 2))
            problems << QStringLiteral("%1 (plural forms)").arg(where);
        for (const QString &text : texts) {
            if (text.trimmed().isEmpty() != m.source.trimmed().isEmpty())
                problems << QStringLiteral("%1 (empty)").arg(where);
            // %n may be left out of the singular ("eine Datei"), other placeholders never.
            QStringList expected = placeholders(m.source);
            QStringList actual = placeholders(text);
            if (m.numerus && text != texts.last()) {
                expected.removeAll(QStringLiteral("%n"));
                actual.removeAll(QStringLiteral("%n"));
            }
            if (expected != actual)
                problems << QStringLiteral("%1 (placeholders %2 became %3)")
                                .arg(where, expected.join(QLatin1Char(',')), actual.join(QLatin1Char(',')));
            if (hasAccelerator(m.source) != hasAccelerator(text))
                problems << QStringLiteral("%1 (accelerator &: \"%2\")").arg(where, text);
            if (m.source.endsWith(QChar(0x2026)) != text.endsWith(QChar(0x2026)))
                problems << QStringLiteral("%1 (ellipsis: \"%2\")").arg(where, text);
        }
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestTranslations::mainWindowIsGerman()
{
    QTranslator translator;
    QVERIFY(translator.load(QStringLiteral(":/i18n/kernel-explorer_de.qm")));
    QVERIFY(QCoreApplication::installTranslator(&translator));

    MainWindow window;
    QStringList menus;
    for (QAction *action : window.menuBar()->actions())
        menus << action->text();
    QCOMPARE(menus, QStringList({QStringLiteral("&Datei"), QStringLiteral("&Bearbeiten"), QStringLiteral("&Prüfung"),
                                 QStringLiteral("&Ansicht"), QStringLiteral("&Suche"), QStringLiteral("&Hilfe")}));
    auto action = [&window](const char *name) {
        auto *found = window.findChild<QAction *>(QLatin1String(name));
        return found ? found->text() : QStringLiteral("(no %1)").arg(QLatin1String(name));
    };
    QCOMPARE(action("openArchiveAction"), QStringLiteral("Archiv ö&ffnen …"));
    QCOMPARE(action("startSearchAction"), QStringLiteral("Suche &starten"));
    QCOMPARE(action("acceptAction"), QStringLiteral("Kernel &annehmen …"));
    QCOMPARE(action("proposerSettingsAction"), QStringLiteral("&Vorschlagseinstellungen …"));
    QCOMPARE(action("zoomInAction"), QStringLiteral("Ver&größern"));
    auto *pages = window.findChild<QTabWidget *>(QStringLiteral("pages"));
    QVERIFY(pages);
    QCOMPARE(pages->tabText(1), QStringLiteral("Stammbaum"));
    QCOMPARE(window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))->windowTitle(),
             QStringLiteral("Hauptwerkzeugleiste"));
    QCoreApplication::removeTranslator(&translator);
}

// Qt's own texts (dialog buttons, the file dialog) come from Qt's translations, which the bootstrap installs
// (qt6-translations-l10n) and the application loads as main.cpp does.
void TestTranslations::qtsOwnButtonsAreGerman()
{
    QTranslator qtTranslator;
    QVERIFY2(qtTranslator.load(QLocale(QLocale::German), QStringLiteral("qtbase"), QStringLiteral("_"),
                               QLibraryInfo::path(QLibraryInfo::TranslationsPath)),
             "no qtbase_de.qm: install qt6-translations-l10n (packaging/bootstrap.sh does)");
    QVERIFY(QCoreApplication::installTranslator(&qtTranslator));
    QDialogButtonBox buttons(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    QCOMPARE(buttons.button(QDialogButtonBox::Cancel)->text(), QStringLiteral("Abbrechen"));
    QCoreApplication::removeTranslator(&qtTranslator);
}

QTEST_MAIN(TestTranslations)
#include "tst_translations.moc"
