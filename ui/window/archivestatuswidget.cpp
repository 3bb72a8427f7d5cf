#include "ui/window/archivestatuswidget.h"

#include "ui/common/archivereader.h"
#include "ui/common/archivesession.h"
#include "ui/common/format.h"

#include <QDir>
#include <QHBoxLayout>
#include <QLabel>

namespace kx::ui {

ArchiveStatusWidget::ArchiveStatusWidget(QWidget *parent)
    : QWidget(parent)
    , m_pathLabel(new QLabel(this))
    , m_countsLabel(new QLabel(this))
    , m_readOnlyLabel(new QLabel(tr("Read-only"), this))
{
    m_pathLabel->setObjectName(QStringLiteral("archivePathLabel"));
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_countsLabel->setObjectName(QStringLiteral("archiveCountsLabel"));
    m_readOnlyLabel->setObjectName(QStringLiteral("readOnlyLabel"));
    m_readOnlyLabel->setToolTip(tr("The archive is open for browsing only; nothing can be written to it."));
    QFont bold = m_readOnlyLabel->font();
    bold.setBold(true);
    m_readOnlyLabel->setFont(bold);
    m_readOnlyLabel->setVisible(false);

    auto layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(12);
    layout->addWidget(m_readOnlyLabel);
    layout->addWidget(m_countsLabel);
    layout->addWidget(m_pathLabel);
    setArchive({});
}

void ArchiveStatusWidget::attach(ArchiveSession *session)
{
    connect(session, &ArchiveSession::archiveChanged, this, [this, session] { setArchive(session->ref()); });
    connect(session, &ArchiveSession::verdictsChanged, this, &ArchiveStatusWidget::refresh);
    connect(session, &ArchiveSession::candidateAdded, this, &ArchiveStatusWidget::refresh);
    setArchive(session->ref());
}

void ArchiveStatusWidget::setArchive(const ArchiveRef &archive)
{
    m_archive = archive;
    const QString path = archiveFilePath(archive);
    m_pathLabel->setText(path.isEmpty() ? tr("No archive open") : Format::path(path));
    m_pathLabel->setToolTip(QDir::toNativeSeparators(path));
    m_readOnlyLabel->setVisible(!archive.empty() && archive.isReadOnly());
    m_countsLabel->clear();
    refresh();
}

void ArchiveStatusWidget::refresh()
{
    m_read.invalidate();
    if (m_archive.empty())
        return;
    readArchiveAsync(m_archive, [](const Archive &archive) {
        return archive.info();
    }).then(this, m_read.guard([this](const ReadResult<ArchiveInfo> &result) {
        if (!result.ok()) {
            m_countsLabel->setText(tr("unreadable"));
            m_countsLabel->setToolTip(result.error);
            return;
        }
        const ArchiveInfo &info = result.value;
        m_countsLabel->setText(
            tr("Kernels: %1 · Evaluations: %2 · GPUs: %3").arg(info.candidates).arg(info.evaluations).arg(info.gpus));
        m_countsLabel->setToolTip(tr("Ops: %1 · Runs: %2 · Verdicts: %3 · Schema version %4 · %5")
                                      .arg(info.ops)
                                      .arg(info.runs)
                                      .arg(info.verdicts)
                                      .arg(info.schemaVersion)
                                      .arg(Format::bytes(info.fileBytes)));
    }));
}

QString ArchiveStatusWidget::pathText() const
{
    return m_pathLabel->text();
}

QString ArchiveStatusWidget::countsText() const
{
    return m_countsLabel->text();
}

bool ArchiveStatusWidget::readOnlyShown() const
{
    return !m_readOnlyLabel->isHidden();
}

} // namespace kx::ui
