#pragma once

#include "core/domain/op.h"
#include "core/util/expected.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <optional>
#include <stop_token>

class QAction;
class QProgressDialog;
class QWidget;

namespace kx::ui {

/// What an import off the GUI thread produced.
struct PyTorchImportResult
{
    std::optional<Op> op;
    Error error;              ///< Why there is no op; of kind Cancelled when the user cancelled.
    QString translationError; ///< The op imported, but the templates cannot generate it.
};

/**
 * File > Open PyTorch Op…: imports a KernelBench-format problem file (class Model, get_inputs,
 * get_init_inputs) through core's ProblemImporter on a worker thread, with a cancellable progress dialog.
 * Errors go to a message box that their kind heads (none for a cancel); a successful import emits imported().
 */
class PyTorchImport : public QObject
{
    Q_OBJECT

public:
    /// @p window (not owned) parents the file, progress and message dialogs.
    explicit PyTorchImport(QWidget *window);
    ~PyTorchImport() override;

    QAction *action() const { return m_action; }
    bool isRunning() const;

    /// Starts importing @p path; ignored while another import runs.
    void importFile(const QString &path);
    /// Whether a dropped file is a problem file this action opens (a .py file).
    static bool isProblemFile(const QString &path);

signals:
    void imported(const kx::Op &op);
    /// The import ended without an op (the message was shown unless it was cancelled).
    void failed(const QString &message);

private:
    void chooseFile();
    void finish();

    QWidget *m_window; // Not owned
    QAction *m_action;
    QProgressDialog *m_progress = nullptr;
    QFutureWatcher<PyTorchImportResult> m_watcher;
    std::stop_source m_stop;
    QString m_path;
};

} // namespace kx::ui
