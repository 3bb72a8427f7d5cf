#pragma once

#include "ui/common/archivepage.h"
#include "ui/common/latestjob.h"
#include "ui/plots/plotsdata.h"

#include <QHash>

class QCheckBox;
class QComboBox;
class QCPAbstractPlottable;
class QCPBarsGroup;
class QCustomPlot;
class QLabel;
class QMenu;

namespace kx::ui {

class PortabilityTable;

/**
 * The plots page: speedup per candidate and GPU and best speedup over the search (each with torch.compile's
 * speedup per GPU as a line to beat), the selected kernel's runtime distribution against eager PyTorch and
 * Inductor, and its place under each GPU's roofline. Data is read
 * off the GUI thread; hovering shows the numbers; each plot exports to PNG or PDF.
 */
class PlotsPage : public ArchivePage
{
    Q_OBJECT

public:
    /// A colour per GPU that depends on its name only, so a GPU keeps its colour from archive to archive (two
    /// GPUs whose names pick the same colour get the next free ones, in name order).
    static QHash<QString, QColor> gpuColors(const QStringList &gpus);
    /// Every how many bars the speedup chart names one, so that names do not overlap at this width.
    static int labelStep(int bars, int widthPx);
    enum Plot { SpeedupBarsPlot, ProgressPlot, DistributionPlot, RooflinePlot, PlotCount };

    explicit PlotsPage(QWidget *parent = nullptr);

    void setArchive(const ArchiveRef &archive) override;
    /// Shows the candidate in the distribution and roofline plots, and its op in the others.
    void showCandidate(const QString &candidateId) override;
    /// Chooses the op and run (nullopt: all runs) for the speedup plots.
    void setScope(const QString &opName, std::optional<std::int64_t> runId);
    /// The archive has new results (a reload): everything is read again.
    void reload() override;
    /// The Export Plot menu.
    QList<QAction *> pageActions() const override;

    bool isLoading() const { return m_loading; }
    PortabilityTable *portabilityTable() const { return m_portability; }
    /// A page in a tab that is not shown reads nothing: a change of kernel or scope while hidden is read when
    /// the page is shown.
    void setDeferredWhileHidden(bool deferred) { m_deferWhileHidden = deferred; }
    const PlotsData &data() const { return m_data; }
    QCustomPlot *plot(Plot which) const { return m_plots[which]; }
    /// The hover text of a data point (what the tooltip shows), empty when there is none.
    QString toolTipFor(Plot which, QCPAbstractPlottable *plottable, int dataIndex) const;

    /// Export Plot: one entry per plot (the page's Export button and the main window's File menu).
    QMenu *exportMenu() const { return m_exportMenu; }

    /// Writes one plot as PDF (".pdf") or PNG (anything else); false with *error on failure.
    bool exportPlot(Plot which, const QString &path, QString *error = nullptr) const;

signals:
    void loaded();
    void loadFailed(const QString &message);

protected:
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override;

private:
    /// Reads what the scope shows (keeping the op's plots when only the kernel changed).
    void read();
    void showData();
    void buildSpeedupBars();
    void buildProgress();
    void buildDistribution();
    void buildRoofline();
    /// A dashed line per GPU at torch.compile's speedup over eager; returns the highest (0: none).
    void addDiscountedBars(QCustomPlot *plot, QCPBarsGroup *group, const QVector<double> &keys, double width);
    double addInductorLines(QCustomPlot *plot, double left, double right);
    /// The speedup axis from bottom to top (the smallest and largest speedup drawn), linear or logarithmic.
    void setSpeedupAxis(QCustomPlot *plot, double bottom, double top);
    void updateScopeChoices();
    void showToolTip(Plot which, const QPoint &pos);
    void chooseExport(Plot which);
    static QColor seriesColor(int index);
    QColor gpuColor(const QString &gpu) const;

    ArchiveRef m_archive;
    PlotsScope m_scope;
    PlotsData m_data;
    QHash<QString, QColor> m_gpuColors;
    LatestJob m_load;
    bool m_loading = false;
    bool m_deferWhileHidden = false;
    bool m_stale = false;         // Something changed while hidden: read when shown.
    bool m_opDataCurrent = false; // m_data's op-level plots are up to date with the archive.
    bool m_updatingChoices = false;
    bool m_restylePending = false;
    QComboBox *m_opCombo;
    QComboBox *m_runCombo;
    QLabel *m_status;
    QCheckBox *m_logScale;
    PortabilityTable *m_portability; // The speedup axes of the bars and the progress plot.
    QMenu *m_exportMenu;
    QCustomPlot *m_plots[PlotCount];
    QHash<QCPAbstractPlottable *, QStringList> m_tips;
};

} // namespace kx::ui
