#include "ui/search/workerslist.h"

#include "ui/common/format.h"

#include <QHeaderView>

namespace kx::ui {

WorkersList::WorkersList(QWidget *parent)
    : QTreeWidget(parent)
{
    setObjectName(QStringLiteral("workersList"));
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setSelectionMode(QAbstractItemView::NoSelection);
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("GPU #"), tr("State"), tr("Host"), tr("Name"), tr("Restarts"), tr("Last error")});
    header()->setStretchLastSection(true);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
}

QString WorkersList::stateText(WorkerState state)
{
    switch (state) {
    case WorkerState::Starting: return tr("starting");
    case WorkerState::Idle: return tr("idle");
    case WorkerState::Busy: return tr("busy");
    case WorkerState::Restarting: return tr("restarting");
    case WorkerState::Failed: return tr("failed");
    case WorkerState::Stopped: return tr("stopped");
    }
    return QString::fromLatin1(toString(state));
}

void WorkersList::setWorkers(const std::vector<WorkerStatus> &workers)
{
    while (topLevelItemCount() > int(workers.size()))
        delete takeTopLevelItem(topLevelItemCount() - 1);
    for (int i = 0; i < int(workers.size()); ++i) {
        const WorkerStatus &worker = workers.at(i);
        QTreeWidgetItem *item = topLevelItem(i);
        if (!item)
            item = new QTreeWidgetItem(this);
        item->setText(DeviceColumn, QString::number(worker.device));
        item->setText(StateColumn, stateText(worker.state));
        item->setForeground(StateColumn, worker.state == WorkerState::Failed ? QBrush(Format::warningColor())
                                                                             : palette().brush(QPalette::Text));
        item->setText(HostColumn, Format::text(worker.gpu.host)); // workers may run on SSH hosts or Slurm nodes
        item->setText(GpuColumn, worker.gpu.name.empty() ? tr("(unknown)") : Format::text(worker.gpu.name));
        item->setText(RestartsColumn, QString::number(worker.restarts));
        item->setText(ErrorColumn, Format::text(worker.lastError));
        item->setToolTip(ErrorColumn, Format::text(worker.lastError));
    }
}

} // namespace kx::ui
