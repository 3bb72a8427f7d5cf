#include "ui/common/archivesession.h"

#include "ui/common/archivereader.h"

#include <QDir>
#include <QFileInfo>

#include <algorithm>

namespace kx::ui {

namespace {

void setError(QString *errorMessage, const QString &text)
{
    if (errorMessage)
        *errorMessage = text;
}

} // namespace

ArchiveSession::ArchiveSession(QObject *parent)
    : QObject(parent)
{}

ArchiveSession::~ArchiveSession() = default;

bool ArchiveSession::isReadOnly() const
{
    return m_archive && m_archive->isReadOnly();
}

ArchiveRef ArchiveSession::ref() const
{
    if (!m_archive)
        return {};
    return archiveRef(m_path, m_archive->isReadOnly() ? ArchiveMode::ReadOnly : ArchiveMode::ReadWrite);
}

bool ArchiveSession::open(const QString &path, Access access, QString *errorMessage)
{
    const QFileInfo file(path);
    if (!file.exists()) {
        setError(errorMessage, tr("The file \"%1\" does not exist.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (!file.isFile()) {
        setError(errorMessage, tr("\"%1\" is not a file.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (!file.isReadable()) {
        setError(errorMessage, tr("The file \"%1\" cannot be read.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    // A file without any write permission counts as read-only even for root (core agrees), and SQLite in
    // WAL mode writes companion files next to the archive, so the folder must be writable too.
    // (WriteUser is not a mode bit: Qt derives it from access(), which always succeeds for root.)
    const QFileDevice::Permissions anyWrite =
        QFileDevice::WriteOwner | QFileDevice::WriteGroup | QFileDevice::WriteOther;
    const bool writable =
        file.isWritable() && (file.permissions() & anyWrite) && QFileInfo(file.absolutePath()).isWritable();
    const ArchiveMode mode = access == Access::ReadOnly || !writable ? ArchiveMode::ReadOnly : ArchiveMode::ReadWrite;
    return adopt(file.absoluteFilePath(), mode, errorMessage);
}

bool ArchiveSession::create(const QString &path, QString *errorMessage)
{
    const QFileInfo file(path);
    if (file.exists()) {
        setError(
            errorMessage,
            tr("\"%1\" already exists. Choose another name, or open it instead.").arg(QDir::toNativeSeparators(path)));
        return false;
    }
    if (!QDir().mkpath(file.absolutePath())) {
        setError(errorMessage,
                 tr("The folder \"%1\" cannot be created.").arg(QDir::toNativeSeparators(file.absolutePath())));
        return false;
    }
    return adopt(file.absoluteFilePath(), ArchiveMode::ReadWrite, errorMessage);
}

bool ArchiveSession::openOrCreate(const QString &path, QString *errorMessage)
{
    return QFileInfo::exists(path) ? open(path, Access::Automatic, errorMessage) : create(path, errorMessage);
}

void ArchiveSession::close()
{
    if (!m_archive)
        return;
    m_archive.reset();
    m_path.clear();
    emit archiveChanged();
}

Status ArchiveSession::writable() const
{
    if (!m_archive)
        return Error{tr("No archive is open.").toStdString()};
    if (m_archive->isReadOnly())
        return Error{tr("The archive is open read-only.").toStdString()};
    return Status::ok();
}

Expected<std::int64_t> ArchiveSession::addVerdict(const Verdict &verdict)
{
    if (Status status = writable(); !status)
        return status.error();
    const std::vector<std::string> &codes = verdictReasonCodes();
    if (std::find(codes.begin(), codes.end(), verdict.reasonCode) == codes.end())
        return Error{tr("Unknown reason \"%1\".").arg(QString::fromStdString(verdict.reasonCode)).toStdString()};
    std::int64_t id = 0;
    try {
        if (!m_archive->candidate(verdict.candidateId))
            return Error{tr("The candidate %1 is not in the archive.")
                             .arg(QString::fromStdString(verdict.candidateId).left(12))
                             .toStdString()};
        Transaction tx = m_archive->begin();
        id = m_archive->addVerdict(tx, verdict);
        tx.commit();
    } catch (const std::exception &error) {
        return Error{error.what()};
    }
    emit verdictsChanged(QString::fromStdString(verdict.candidateId));
    return id;
}

Status ArchiveSession::retractVerdict(std::int64_t verdictId, const QString &candidateId)
{
    if (Status status = writable(); !status)
        return status;
    try {
        Transaction tx = m_archive->begin();
        m_archive->retractVerdict(tx, verdictId);
        tx.commit();
    } catch (const std::exception &error) {
        return Error{error.what()};
    }
    emit verdictsChanged(candidateId);
    return Status::ok();
}

Expected<bool> ArchiveSession::addCandidate(const Candidate &candidate, int generation)
{
    if (Status status = writable(); !status)
        return status.error();
    Candidate stored = candidate;
    if (stored.id.empty())
        stored.id = makeCandidateId(stored.source, stored.launchPlan);
    bool added = false;
    try {
        Transaction tx = m_archive->begin();
        added = m_archive->addCandidate(tx, stored, generation);
        tx.commit();
    } catch (const std::exception &error) {
        return Error{error.what()};
    }
    if (added)
        emit candidateAdded(stored, generation);
    return added;
}

bool ArchiveSession::adopt(const QString &path, ArchiveMode mode, QString *errorMessage)
{
    Expected<std::unique_ptr<Archive>> opened = Error{};
    try {
        opened = Archive::open(archivePathToStd(path), mode);
    } catch (const std::exception &error) {
        opened = Error{error.what()};
    }
    if (!opened) {
        setError(errorMessage, tr("\"%1\" cannot be opened as an archive: %2")
                                   .arg(QDir::toNativeSeparators(path), readErrorText(opened.error().message)));
        return false;
    }
    m_archive = std::move(*opened);
    m_path = path;
    emit archiveChanged();
    return true;
}

} // namespace kx::ui
