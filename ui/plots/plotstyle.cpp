#include "ui/plots/plotstyle.h"

#include <qcustomplot.h>

namespace kx::ui {

/// Adds the heading and the axis labels (once; their colours come from applyPalette).
void addTitles(QCustomPlot *plot, const QString &title, const QString &xLabel, const QString &yLabel)
{
    plot->plotLayout()->insertRow(0);
    auto heading =
        new QCPTextElement(plot, title, QFont(plot->font().family(), plot->font().pointSize() + 1, QFont::Bold));
    plot->plotLayout()->addElement(0, 0, heading);
    plot->xAxis->setLabel(xLabel);
    plot->yAxis->setLabel(yLabel);
}

/// Moves the legend out of the axis rect into a row of its own under the heading, its entries side by side:
/// where bars or boxes fill the plot, no corner of it is free for a legend.
void putLegendAboveAxes(QCustomPlot *plot)
{
    plot->axisRect()->insetLayout()->take(plot->legend);
    plot->axisRect()->insetLayout()->simplify();
    plot->plotLayout()->insertRow(1);
    plot->plotLayout()->addElement(1, 0, plot->legend);
    plot->plotLayout()->setRowStretchFactor(1, 0.001);
    plot->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot->legend->setWrap(3);
}

/// QCustomPlot paints with colours of its own: take them from the palette, again whenever it changes.
void applyPalette(QCustomPlot *plot)
{
    const QPalette pal = plot->palette();
    const QColor text = pal.color(QPalette::Text);
    plot->setBackground(pal.color(QPalette::Base));
    if (auto heading = qobject_cast<QCPTextElement *>(plot->plotLayout()->element(0, 0)))
        heading->setTextColor(text);
    for (QCPAxis *axis : {plot->xAxis, plot->yAxis}) {
        axis->setBasePen(QPen(text));
        axis->setTickPen(QPen(text));
        axis->setSubTickPen(QPen(text));
        axis->setTickLabelColor(text);
        axis->setLabelColor(text);
        axis->grid()->setPen(QPen(pal.color(QPalette::Mid), 0, Qt::DotLine));
    }
    plot->legend->setBrush(pal.color(QPalette::Base));
    plot->legend->setTextColor(text);
    plot->legend->setBorderPen(QPen(pal.color(QPalette::Mid)));
}

/// A centred note on an empty plot.
void showNote(QCustomPlot *plot, const QString &text)
{
    auto note = new QCPItemText(plot);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.5);
    note->setText(text);
    note->setColor(plot->palette().color(QPalette::PlaceholderText));
}

void resetPlot(QCustomPlot *plot)
{
    plot->clearPlottables();
    plot->clearItems();
    plot->legend->setVisible(false);
    plot->xAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->yAxis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
    plot->xAxis->setScaleType(QCPAxis::stLinear);
    plot->yAxis->setScaleType(QCPAxis::stLinear);
    // Without "b" in the format, a label like "fdd3e059" is not typeset as a power of ten.
    plot->xAxis->setNumberFormat(QStringLiteral("g"));
    plot->yAxis->setNumberFormat(QStringLiteral("g"));
}

/// A horizontal line from left to right at y as a graph (not an item), so that hovering it shows a tooltip.
QCPGraph *addReferenceLine(QCustomPlot *plot, const QString &name, const QColor &color, double left, double right,
                           double y)
{
    auto line = plot->addGraph();
    line->setName(name);
    line->setPen(QPen(color, 1.5, Qt::DashDotLine));
    line->setData({left, right}, {y, y}, true);
    return line;
}

} // namespace kx::ui
