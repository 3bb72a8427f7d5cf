#include "ui/window/pytorchimport.h"

#include "ui/common/uiresources.h"
#include "ui/window/errorreporter.h"

#include "core/kernelbench/problemimporter.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMessageBox>
#include <QProgressDialog>
#include <QtConcurrent/QtConcurrentRun>

namespace kx::ui {

PyTorchImport::PyTorchImport(QWidget *window)
    : QObject(window)
    , m_window(window)
    , m_action(new QAction(icon(QStringLiteral("pytorch-open")), tr("Open P&yTorch Op…"), this))
{
    // Ctrl+Shift+O already opens an op from the catalog; this one imports a problem file.
    m_action->setObjectName(QStringLiteral("openPyTorchAction"));
    m_action->setShortcut(QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O));
    m_action->setToolTip(tr("Import a KernelBench-format PyTorch file (class Model, get_inputs, get_init_inputs)"));
    connect(m_action, &QAction::triggered, this, &PyTorchImport::chooseFile);
    connect(&m_watcher, &QFutureWatcher<PyTorchImportResult>::finished, this, &PyTorchImport::finish);
}

PyTorchImport::~PyTorchImport()
{
    // The helper process is killed through the stop token; wait so the thread does not outlive us.
    m_stop.request_stop();
    m_watcher.waitForFinished();
}

bool PyTorchImport::isRunning() const
{
    return m_watcher.isRunning();
}

bool PyTorchImport::isProblemFile(const QString &path)
{
    return QFileInfo(path).suffix().compare(QLatin1String("py"), Qt::CaseInsensitive) == 0;
}

void PyTorchImport::chooseFile()
{
    const QString path = QFileDialog::getOpenFileName(m_window, tr("Open PyTorch Op"), QString(),
                                                      tr("PyTorch problem files (*.py);;All files (*)"));
    if (!path.isEmpty())
        importFile(path);
}

void PyTorchImport::importFile(const QString &path)
{
    if (isRunning())
        return;
    // Importing runs the file's Python; without bubblewrap it cannot be confined, and only the user may say
    // that this file is trusted enough to run without it.
    ImportOptions options;
    if (!ProblemImporter::sandboxAvailable()) {
        const auto answer = QMessageBox::warning(
            m_window, tr("Open PyTorch Op"),
            tr("%1 is Python code, and importing it runs it. bubblewrap (bwrap) is not installed, so it cannot "
               "run in a sandbox: it would run with all of your rights (your files, the network, your keys).\n\n"
               "Install bubblewrap to import files confined. Run this file unconfined anyway?")
                .arg(QFileInfo(path).fileName()),
            QMessageBox::Yes | QMessageBox::No, QMessageBox::No);
        if (answer != QMessageBox::Yes) {
            emit failed(tr("The import was cancelled."));
            return;
        }
        options.sandbox = false;
    }
    m_path = path;
    m_stop = std::stop_source();
    if (!m_progress) {
        m_progress = new QProgressDialog(m_window);
        m_progress->setWindowTitle(tr("Open PyTorch Op"));
        m_progress->setRange(0, 0); // the helper reports no progress: a busy indicator
        m_progress->setMinimumDuration(0);
        m_progress->setAutoClose(false);
        m_progress->setAutoReset(false);
        connect(m_progress, &QProgressDialog::canceled, this, [this] { m_stop.request_stop(); });
    }
    m_progress->setLabelText(tr("Tracing %1 with PyTorch…").arg(QFileInfo(path).fileName()));
    m_progress->show();
    m_action->setEnabled(false);

    const std::string file = path.toStdString();
    const std::stop_token token = m_stop.get_token();
    m_watcher.setFuture(QtConcurrent::run([file, token, options] {
        PyTorchImportResult result;
        auto imported = ProblemImporter(options).importFile(file, token);
        if (token.stop_requested()) {
            result.error = Error::cancelled(tr("The import was cancelled.").toStdString());
        } else if (!imported) {
            result.error = imported.error();
        } else {
            result.translationError = QString::fromStdString(imported->translationError);
            result.op = std::move(imported->op);
        }
        return result;
    }));
}

void PyTorchImport::finish()
{
    m_progress->hide();
    m_action->setEnabled(true);
    const PyTorchImportResult result = m_watcher.result();
    if (!result.op) {
        const QString message = QString::fromStdString(result.error.message);
        Error shown = result.error;
        shown.message = tr("Cannot import %1:\n%2").arg(QFileInfo(m_path).fileName(), message).toStdString();
        showErrorBox(m_window, tr("Open PyTorch Op"), shown); // nothing for a cancel
        emit failed(message);
        return;
    }
    if (!result.translationError.isEmpty()) {
        const auto answer = QMessageBox::question(
            m_window, tr("Open PyTorch Op"),
            tr("%1 imported, but the code templates cannot generate it:\n%2\n\nOpen it anyway (for a language "
               "model proposer)?")
                .arg(QString::fromStdString(result.op->name), result.translationError));
        if (answer != QMessageBox::Yes) {
            emit failed(result.translationError);
            return;
        }
    }
    emit imported(*result.op);
}

} // namespace kx::ui
