#pragma once

#include "ui/common/latestjob.h"

#include "core/domain/op.h"

#include <QDialog>

#include <optional>
#include <vector>

class QLabel;
class QLineEdit;
class QListView;
class QPlainTextEdit;
class QSortFilterProxyModel;
class QStandardItemModel;
class QTreeWidget;

namespace kx::ui {

/**
 * File ▸ Open Op: the built-in catalog (recent ops first) and the KernelBench problems imported into the
 * archive, with a search field; for the selected op its description, shapes, PyTorch reference and the
 * earlier runs in the archive (read off the GUI thread).
 */
class OpenDialog : public QDialog
{
    Q_OBJECT

public:
    enum Role { OpNameRole = Qt::UserRole + 1, SearchTextRole, RecentRole, SourceRole };

    explicit OpenDialog(const QString &archivePath, QWidget *parent = nullptr);

    /// The chosen op (after accept), or the selected one.
    std::optional<Op> selectedOp() const;
    /// The run chosen in the earlier runs list (0: none).
    std::int64_t selectedRunId() const;
    bool selectOp(const QString &name);
    void setFilterText(const QString &text);

    /// Most recent first; kept in QSettings.
    static QStringList recentOps();
    static void addRecentOp(const QString &name);

    QSortFilterProxyModel *proxy() const { return m_proxy; }
    QTreeWidget *runsList() const { return m_runs; }
    QString referenceText() const;
    QString shapesText() const;
    bool isLoading() const { return m_pendingReads > 0; }

    void accept() override;

signals:
    /// Earlier runs of the selected op were read (count).
    void runsLoaded(int count);
    /// The archive's imported (KernelBench) ops were read.
    void archiveOpsLoaded(int count);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void addOpRow(const Op &op, bool recent);
    void rebuild();
    void showSelected();
    void loadRuns(const QString &opName);

    QString m_archivePath;
    std::vector<Op> m_archiveOps; // Imported ops (not built in) from the archive.
    LatestJob m_runsRead;
    int m_pendingReads = 0;
    QStandardItemModel *m_model;
    QSortFilterProxyModel *m_proxy;
    QLineEdit *m_filter;
    QListView *m_list;
    QLabel *m_title;
    QLabel *m_description;
    QLabel *m_shapes;
    QPlainTextEdit *m_reference;
    QTreeWidget *m_runs;
    QLabel *m_kernelBench;
};

} // namespace kx::ui
