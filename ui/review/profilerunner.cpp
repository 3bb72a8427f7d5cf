#include "ui/review/profilerunner.h"

#include <QCoreApplication>
#include <QDir>
#include <QTimer>

#include <signal.h>

namespace kx::ui {

namespace {

// kx's exit codes (app/kx/exitcodes.h) that the GUI explains; kx profile exits Unavailable only without ncu.
constexpr int kExitNoGpu = 4;
constexpr int kExitUnavailable = 5;
constexpr int kCancelGraceMs = 5000;

} // namespace

ProfileRunner::ProfileRunner(QObject *parent)
    : QObject(parent)
    , m_program(QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("kx")))
{}

ProfileRunner::~ProfileRunner()
{
    if (m_process) {
        m_process->disconnect(this);
        m_process->kill();
        m_process->waitForFinished(3000);
    }
}

bool ProfileRunner::isRunning() const
{
    return m_process != nullptr;
}

bool ProfileRunner::start(const QString &candidateId, const QString &archivePath, int gpu)
{
    if (m_process)
        return false;
    m_candidateId = candidateId;
    m_lastError.clear();
    m_cancelled = false;
    m_process = new QProcess(this);
    m_process->setProcessChannelMode(QProcess::MergedChannels);
    connect(m_process, &QProcess::readyReadStandardOutput, this, [this] {
        const QString text = QString::fromLocal8Bit(m_process->readAllStandardOutput());
        for (const QString &line : text.split(QLatin1Char('\n')))
            if (line.startsWith(QLatin1String("kx: ")))
                m_lastError = line.mid(4).trimmed();
        emit output(text);
    });
    connect(m_process, &QProcess::finished, this, &ProfileRunner::onFinished);
    connect(m_process, &QProcess::errorOccurred, this, &ProfileRunner::onError);
    m_process->start(m_program, {QStringLiteral("profile"), candidateId, QStringLiteral("--archive"), archivePath,
                                 QStringLiteral("--gpu"), QString::number(gpu)});
    return true;
}

void ProfileRunner::cancel()
{
    if (!m_process || m_cancelled)
        return;
    m_cancelled = true;
    // Ctrl-C: kx stops ncu and the profiled child and stores nothing; a kx that does not end soon is killed.
    if (const qint64 pid = m_process->processId(); pid > 0)
        ::kill(pid_t(pid), SIGINT);
    QProcess *process = m_process;
    QTimer::singleShot(kCancelGraceMs, process, [process] { process->kill(); });
}

void ProfileRunner::onFinished(int exitCode, QProcess::ExitStatus status)
{
    if (m_cancelled)
        return finish(false, tr("Profiling was cancelled; nothing was stored."));
    if (status != QProcess::NormalExit)
        return finish(false, tr("kx profile stopped unexpectedly."));
    switch (exitCode) {
    case 0: return finish(true, tr("The profile was stored."));
    case kExitUnavailable:
        return finish(false, m_lastError.isEmpty() ? tr("Nsight Compute (ncu) was not found.") : m_lastError);
    case kExitNoGpu: return finish(false, m_lastError.isEmpty() ? tr("No GPU can be used.") : m_lastError);
    default:
        return finish(false,
                      m_lastError.isEmpty() ? tr("kx profile failed (exit code %1).").arg(exitCode) : m_lastError);
    }
}

void ProfileRunner::onError(QProcess::ProcessError error)
{
    if (error == QProcess::FailedToStart)
        finish(false,
               tr("%1 could not be started: %2").arg(QDir::toNativeSeparators(m_program), m_process->errorString()));
}

void ProfileRunner::finish(bool ok, const QString &message)
{
    if (!m_process)
        return;
    m_process->disconnect(this);
    m_process->deleteLater();
    m_process = nullptr;
    emit finished(ok, message);
}

} // namespace kx::ui
