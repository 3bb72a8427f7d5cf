#pragma once

#include <QTableWidget>

namespace kx::ui {

struct PlotsData;

/**
 * The same kernels on every GPU of an op: one column per GPU, a row for eager PyTorch (its time) and for
 * torch.compile (its speedup over eager), then one row per kernel with its speedup over each GPU's eager and the
 * spread between its best and worst GPU. Kernels timed on the most GPUs come first (a search on several GPUs
 * re-times its best kernels on each).
 */
class PortabilityTable : public QTableWidget
{
    Q_OBJECT

public:
    explicit PortabilityTable(QWidget *parent = nullptr);
    void showData(const PlotsData &data);

    /// Rows above the kernels: eager PyTorch and torch.compile.
    static constexpr int kReferenceRows = 2;
};

} // namespace kx::ui
