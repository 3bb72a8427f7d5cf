#pragma once

#include "ui/search/baselinesettings.h"

#include <QObject>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QSpinBox;
class QWidget;

namespace kx::ui {

/// The run panel's baseline fields: precision policy, the torch.compile (Inductor) comparison and when the
/// baselines are timed again. They start with the stored settings and store every change (QSettings).
class BaselineSettingsEditor : public QObject
{
    Q_OBJECT

public:
    /// The fields are created as children of parent; addRows() places them.
    explicit BaselineSettingsEditor(QWidget *parent);

    /// Adds the fields as rows of form (the run panel's search settings).
    void addRows(QFormLayout *form);

    BaselineSettings settings() const;
    /// Shows and stores settings.
    void setSettings(const BaselineSettings &settings);
    /// Fields are editable only while no search runs.
    void setEnabled(bool enabled);

private:
    void store() const;

    QComboBox *m_precision;
    QCheckBox *m_inductor;
    QSpinBox *m_everyEvaluations;
    QSpinBox *m_everyMinutes;
    bool m_loading = false; // Showing settings, not editing them: nothing to store yet.
};

} // namespace kx::ui
