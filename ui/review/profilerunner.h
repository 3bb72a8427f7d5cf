#pragma once

#include <QObject>
#include <QProcess>
#include <QString>

namespace kx::ui {

/**
 * Runs `kx profile ID --archive PATH --gpu N` for the GUI: a child process, so nothing blocks the GUI thread and
 * candidate code never runs in the GUI's process; its output arrives as it is written, and it can be cancelled.
 * kx stores the profile in the archive; the caller reads it back when finished() comes.
 */
class ProfileRunner : public QObject
{
    Q_OBJECT

public:
    explicit ProfileRunner(QObject *parent = nullptr);
    ~ProfileRunner() override;

    /// The kx program (default: kx beside this program).
    void setProgram(const QString &program) { m_program = program; }
    QString program() const { return m_program; }

    /// False when a profile is already running.
    bool start(const QString &candidateId, const QString &archivePath, int gpu);
    /// Stops the running profile (nothing is stored); finished() follows.
    void cancel();
    bool isRunning() const;
    QString candidateId() const { return m_candidateId; }

signals:
    /// Text kx wrote (standard output and error together).
    void output(const QString &text);
    /// ok: kx stored the profiles and all of them worked; message says what happened in one sentence.
    void finished(bool ok, const QString &message);

private:
    void onFinished(int exitCode, QProcess::ExitStatus status);
    void onError(QProcess::ProcessError error);
    void finish(bool ok, const QString &message);

    QString m_program;
    QString m_candidateId;
    QProcess *m_process = nullptr; // Owned (child object)
    QString m_lastError;           // kx's last line starting "kx: "
    bool m_cancelled = false;
};

} // namespace kx::ui
