#pragma once

#include "ui/common/latestjob.h"
#include "ui/kernels/candidatedetails.h"

#include <QObject>
#include <QString>

namespace kx::ui {

/// Reads the selected candidate's details off the GUI thread; only the newest request is delivered.
class CandidateLoader : public QObject
{
    Q_OBJECT

public:
    explicit CandidateLoader(QObject *parent = nullptr);

    /// Loads the candidate from the archive at archivePath; an empty id clears.
    void load(const QString &archivePath, const QString &candidateId);
    void clear();
    QString candidateId() const { return m_candidateId; }

signals:
    void loaded(const kx::ui::CandidateDetails &details);
    void cleared();
    void failed(const QString &candidateId, const QString &message);

private:
    LatestJob m_load;
    QString m_candidateId;
};

} // namespace kx::ui
