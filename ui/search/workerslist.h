#pragma once

#include "core/eval/workerpool.h"

#include <QTreeWidget>

#include <vector>

namespace kx::ui {

/// The search's GPU workers: device, state, GPU name, restarts and the last error.
class WorkersList : public QTreeWidget
{
    Q_OBJECT

public:
    enum Column { DeviceColumn, StateColumn, HostColumn, GpuColumn, RestartsColumn, ErrorColumn, ColumnCount };

    explicit WorkersList(QWidget *parent = nullptr);

    void setWorkers(const std::vector<WorkerStatus> &workers);
    static QString stateText(WorkerState state);
};

} // namespace kx::ui
