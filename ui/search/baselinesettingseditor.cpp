#include "ui/search/baselinesettingseditor.h"

#include "ui/common/baselineformat.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSettings>
#include <QSpinBox>

#include <cmath>

namespace kx::ui {

BaselineSettingsEditor::BaselineSettingsEditor(QWidget *parent)
    : QObject(parent)
    , m_precision(new QComboBox(parent))
    , m_inductor(new QCheckBox(tr("Compare with torch.compile (Ind&uctor)"), parent))
    , m_everyEvaluations(new QSpinBox(parent))
    , m_everyMinutes(new QSpinBox(parent))
{
    setObjectName(QStringLiteral("baselineSettings"));
    m_precision->setObjectName(QStringLiteral("searchPrecision"));
    QStringList descriptions;
    for (const Precision precision : {Precision::Fp32, Precision::Tf32, Precision::KernelBench}) {
        m_precision->addItem(BaselineFormat::precision(precision), int(precision));
        m_precision->setItemData(m_precision->count() - 1, BaselineFormat::precisionDescription(precision),
                                 Qt::ToolTipRole);
        descriptions << BaselineFormat::precisionDescription(precision);
    }
    descriptions.prepend(tr("What candidates may round and how strictly they are checked; eager PyTorch and "
                            "Inductor run under the same policy."));
    m_precision->setToolTip(descriptions.join(QLatin1Char('\n')));

    m_inductor->setObjectName(QStringLiteral("searchInductor"));
    m_inductor->setToolTip(tr("Time torch.compile (Inductor) on the same GPU, inputs and precision as eager "
                              "PyTorch, and show every speedup against both. Off: eager only, nothing to build."));

    m_everyEvaluations->setObjectName(QStringLiteral("baselineEveryEvaluations"));
    m_everyEvaluations->setRange(0, 1000000);
    m_everyEvaluations->setSpecialValueText(tr("never"));
    m_everyEvaluations->setSuffix(tr(" evaluations"));
    m_everyEvaluations->setAccelerated(true);
    m_everyEvaluations->setToolTip(tr("The baselines are timed once per run and GPU, then again after this many "
                                      "evaluations on that GPU (0: never); the drift is recorded."));
    m_everyMinutes->setObjectName(QStringLiteral("baselineEveryMinutes"));
    m_everyMinutes->setRange(0, 100000);
    m_everyMinutes->setSpecialValueText(tr("never"));
    m_everyMinutes->setSuffix(tr(" min"));
    m_everyMinutes->setAccelerated(true);
    m_everyMinutes->setToolTip(tr("… or once this many minutes have passed (0: never)."));

    setSettings(BaselineSettings::load(QSettings()));
    connect(m_precision, &QComboBox::currentIndexChanged, this, &BaselineSettingsEditor::store);
    connect(m_inductor, &QCheckBox::toggled, this, &BaselineSettingsEditor::store);
    connect(m_everyEvaluations, &QSpinBox::valueChanged, this, &BaselineSettingsEditor::store);
    connect(m_everyMinutes, &QSpinBox::valueChanged, this, &BaselineSettingsEditor::store);
}

void BaselineSettingsEditor::addRows(QFormLayout *form)
{
    form->addRow(tr("Precisi&on:"), m_precision);
    form->addRow(m_inductor);
    // Both re-timing limits on one row: the dock is short of height, not of width.
    auto retime = new QHBoxLayout;
    retime->addWidget(m_everyEvaluations, 1);
    retime->addWidget(new QLabel(tr("or"), form->parentWidget()));
    retime->addWidget(m_everyMinutes, 1);
    form->addRow(tr("Re-time &baselines after:"), retime);
}

BaselineSettings BaselineSettingsEditor::settings() const
{
    BaselineSettings settings;
    settings.precision = Precision(m_precision->currentData().toInt());
    settings.inductor = m_inductor->isChecked();
    settings.everyEvaluations = m_everyEvaluations->value();
    settings.everyMinutes = m_everyMinutes->value();
    return settings;
}

void BaselineSettingsEditor::setSettings(const BaselineSettings &settings)
{
    m_loading = true;
    m_precision->setCurrentIndex(std::max(0, m_precision->findData(int(settings.precision))));
    m_inductor->setChecked(settings.inductor);
    m_everyEvaluations->setValue(settings.everyEvaluations);
    m_everyMinutes->setValue(int(std::lround(settings.everyMinutes)));
    m_loading = false;
    store();
}

void BaselineSettingsEditor::setEnabled(bool enabled)
{
    for (QWidget *field : std::initializer_list<QWidget *>{m_precision, m_inductor, m_everyEvaluations, m_everyMinutes})
        field->setEnabled(enabled);
}

void BaselineSettingsEditor::store() const
{
    if (m_loading)
        return;
    QSettings store;
    settings().save(store);
}

} // namespace kx::ui
