#pragma once

#include <QVector>

#include <vector>

namespace kx::ui {

/// A box plot's figures for a set of samples.
struct BoxStats
{
    double minimum = 0, lowerQuartile = 0, median = 0, upperQuartile = 0, maximum = 0;
    QVector<double> outliers;
};

/// Tukey's box: the quartiles; whiskers reach the furthest samples within 1.5 IQR; the rest are outliers.
BoxStats boxStats(std::vector<double> samples);

} // namespace kx::ui
