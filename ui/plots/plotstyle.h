#pragma once

// What the plots of the Plots page share: their titles, the legend's place, the palette's colours, notes on an
// empty plot, a reset before redrawing, and reference lines.
#include <QColor>
#include <QString>

class QCustomPlot;
class QCPGraph;

namespace kx::ui {

/// Adds the heading and the axis labels (once; their colours come from applyPalette).
void addTitles(QCustomPlot *plot, const QString &title, const QString &xLabel, const QString &yLabel);
/// Moves the legend out of the axis rect into a row of its own under the heading, its entries side by side:
/// where bars or boxes fill the plot, no corner of it is free for a legend.
void putLegendAboveAxes(QCustomPlot *plot);
/// QCustomPlot paints with colours of its own: take them from the palette, again whenever it changes.
void applyPalette(QCustomPlot *plot);
/// A centred note on an empty plot.
void showNote(QCustomPlot *plot, const QString &text);
/// Clears what the last drawing added and puts the axes back to linear with plain tick labels.
void resetPlot(QCustomPlot *plot);
/// A horizontal line from left to right at y as a graph (not an item), so that hovering it shows a tooltip.
QCPGraph *addReferenceLine(QCustomPlot *plot, const QString &name, const QColor &color, double left, double right,
                           double y);

} // namespace kx::ui
