#pragma once

#include "core/archive/archive.h"
#include "core/archive/archiveref.h"

#include <QObject>
#include <QString>

#include <memory>

namespace kx::ui {

/**
 * The archive the window works on: its path and the one writable connection (UI writes go through
 * core's API on it). Background readers open their own read-only connections from ref().
 * Opening replaces the current archive only on success, so a failed open leaves everything as it was.
 * Pages subscribe to its signals themselves (see ArchivePage).
 */
class ArchiveSession : public QObject
{
    Q_OBJECT

public:
    enum class Access { Automatic, ReadOnly };

    explicit ArchiveSession(QObject *parent = nullptr);
    ~ArchiveSession() override;

    /// Opens an existing archive. Automatic opens read-write, or read-only when the file or its folder
    /// cannot be written. Returns false with a message in *errorMessage on failure.
    bool open(const QString &path, Access access = Access::Automatic, QString *errorMessage = nullptr);
    /// Creates a new archive; refuses to touch an existing file.
    bool create(const QString &path, QString *errorMessage = nullptr);
    /// Opens the archive, creating it (and its folder) when missing.
    bool openOrCreate(const QString &path, QString *errorMessage = nullptr);
    void close();

    bool isOpen() const { return m_archive != nullptr; }
    QString path() const { return m_path; }
    bool isReadOnly() const;
    /// The open archive and how it was opened, for the parts that read or search it (empty when none is open).
    ArchiveRef ref() const;
    /// The writable (or, for read-only files, read-only) connection; null when none is open.
    Archive *archive() const { return m_archive.get(); }

    // Writes through core's API, each in its own transaction; failures come back as Error.
    /// Records a verdict (reason code from verdictReasonCodes()) and returns its id.
    Expected<std::int64_t> addVerdict(const Verdict &verdict);
    Status retractVerdict(std::int64_t verdictId, const QString &candidateId);
    /// Stores a candidate (a member of candidate.runId at generation, when it names a run); true when it is
    /// new, false when the same content was already stored.
    Expected<bool> addCandidate(const Candidate &candidate, int generation = 0);

signals:
    /// The open archive was replaced or closed.
    void archiveChanged();
    /// A verdict of the candidate was recorded or retracted.
    void verdictsChanged(const QString &candidateId);
    /// A candidate was stored (as a member of its run at generation, when it names one).
    void candidateAdded(const kx::Candidate &candidate, int generation);

private:
    Status writable() const;
    bool adopt(const QString &path, ArchiveMode mode, QString *errorMessage);

    QString m_path;
    std::unique_ptr<Archive> m_archive;
};

} // namespace kx::ui
