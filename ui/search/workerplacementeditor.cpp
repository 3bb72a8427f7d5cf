#include "ui/search/workerplacementeditor.h"

#include <QComboBox>
#include <QFile>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QSettings>
#include <QSpinBox>
#include <QStackedWidget>

namespace kx::ui {

namespace {
const QString kKindKey = QStringLiteral("search/workersOn");
const QString kHostsKey = QStringLiteral("search/sshHosts");
const QString kSlurmWorkersKey = QStringLiteral("search/slurmWorkers");
const QString kPartitionKey = QStringLiteral("search/slurmPartition");
const QString kAccountKey = QStringLiteral("search/slurmAccount");
const QString kTimeLimitKey = QStringLiteral("search/slurmTime");

std::string encoded(const QString &text)
{
    return QFile::encodeName(text.trimmed()).toStdString();
}
} // namespace

WorkerPlacementEditor::WorkerPlacementEditor(QWidget *parent)
    : QWidget(parent)
    , m_kind(new QComboBox(this))
    , m_pages(new QStackedWidget(this))
    , m_hosts(new QLineEdit(this))
    , m_slurmWorkers(new QSpinBox(this))
    , m_partition(new QLineEdit(this))
    , m_account(new QLineEdit(this))
    , m_timeLimit(new QLineEdit(this))
{
    setObjectName(QStringLiteral("workerPlacement"));
    m_kind->setObjectName(QStringLiteral("workersOn"));
    m_kind->addItem(tr("This computer"), int(WorkerPlacement::Kind::Local));
    m_kind->addItem(tr("SSH hosts"), int(WorkerPlacement::Kind::Ssh));
    m_kind->addItem(tr("Slurm jobs"), int(WorkerPlacement::Kind::Slurm));
    m_hosts->setObjectName(QStringLiteral("sshHosts"));
    m_hosts->setPlaceholderText(tr("gpu-a:0,1 gpu-b:3"));
    m_hosts->setToolTip(tr("Hosts reached by SSH with a key, each with the CUDA devices that get a worker "
                           "(HOST or HOST:0,1), separated by spaces"));
    m_slurmWorkers->setObjectName(QStringLiteral("slurmWorkers"));
    m_slurmWorkers->setRange(1, 1024);
    m_slurmWorkers->setSuffix(tr(" workers"));
    m_slurmWorkers->setToolTip(tr("Slurm job steps (srun), one GPU each"));
    m_partition->setObjectName(QStringLiteral("slurmPartition"));
    m_partition->setPlaceholderText(tr("default partition"));
    m_account->setObjectName(QStringLiteral("slurmAccount"));
    m_account->setPlaceholderText(tr("account"));
    m_timeLimit->setObjectName(QStringLiteral("slurmTime"));
    m_timeLimit->setPlaceholderText(tr("time limit, e.g. 2:00:00"));

    m_pages->addWidget(new QWidget(m_pages)); // this computer: see setLocalField()
    m_pages->addWidget(m_hosts);
    auto *slurm = new QWidget(m_pages);
    auto *slurmRow = new QHBoxLayout(slurm);
    slurmRow->setContentsMargins(0, 0, 0, 0);
    for (QWidget *field : std::initializer_list<QWidget *>{m_slurmWorkers, m_partition, m_account, m_timeLimit})
        slurmRow->addWidget(field);
    m_pages->addWidget(slurm);

    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(m_kind);
    row->addWidget(m_pages, 1);

    const QSettings settings;
    setKind(WorkerPlacement::Kind(settings.value(kKindKey, int(WorkerPlacement::Kind::Local)).toInt()));
    m_hosts->setText(settings.value(kHostsKey).toString());
    m_slurmWorkers->setValue(settings.value(kSlurmWorkersKey, 1).toInt());
    m_partition->setText(settings.value(kPartitionKey).toString());
    m_account->setText(settings.value(kAccountKey).toString());
    m_timeLimit->setText(settings.value(kTimeLimitKey).toString());

    connect(m_kind, &QComboBox::currentIndexChanged, this, [this](int index) {
        m_pages->setCurrentIndex(index);
        save();
        emit kindChanged();
    });
    for (QLineEdit *field : {m_hosts, m_partition, m_account, m_timeLimit})
        connect(field, &QLineEdit::editingFinished, this, &WorkerPlacementEditor::save);
    connect(m_slurmWorkers, &QSpinBox::valueChanged, this, &WorkerPlacementEditor::save);
}

void WorkerPlacementEditor::setLocalField(QWidget *field)
{
    const int current = m_pages->currentIndex();
    QWidget *placeholder = m_pages->widget(0);
    m_pages->removeWidget(placeholder);
    delete placeholder;
    m_pages->insertWidget(0, field);
    m_pages->setCurrentIndex(current);
}

WorkerPlacement::Kind WorkerPlacementEditor::kind() const
{
    return WorkerPlacement::Kind(m_kind->currentData().toInt());
}

void WorkerPlacementEditor::setKind(WorkerPlacement::Kind kind)
{
    const int index = std::max(0, m_kind->findData(int(kind)));
    m_kind->setCurrentIndex(index);
    m_pages->setCurrentIndex(index);
}

void WorkerPlacementEditor::setSshHosts(const QString &hosts)
{
    m_hosts->setText(hosts);
}

void WorkerPlacementEditor::setSlurm(int workers, const QString &partition, const QString &account,
                                     const QString &timeLimit)
{
    m_slurmWorkers->setValue(workers);
    m_partition->setText(partition);
    m_account->setText(account);
    m_timeLimit->setText(timeLimit);
}

Expected<WorkerPlacement> WorkerPlacementEditor::placement(const QStringList &workerCommand) const
{
    std::vector<std::string> worker;
    for (const QString &word : workerCommand)
        worker.push_back(QFile::encodeName(word).toStdString());
    if (kind() == WorkerPlacement::Kind::Local)
        return WorkerPlacement::local(std::move(worker));
    if (worker.empty())
        worker = {"kx", "worker"}; // on the hosts' PATH
    if (kind() == WorkerPlacement::Kind::Ssh) {
        std::vector<SshHost> hosts;
        for (const QString &text : m_hosts->text().split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
            auto host = parseSshHost(encoded(text));
            if (!host)
                return Error{tr("SSH hosts: %1").arg(QString::fromStdString(host.error().message)).toStdString()};
            hosts.push_back(std::move(*host));
        }
        if (hosts.empty())
            return Error{tr("SSH hosts: name at least one host, e.g. gpu-a:0,1").toStdString()};
        return WorkerPlacement::ssh({"ssh"}, std::move(hosts), std::move(worker));
    }
    SlurmRequest request;
    request.workers = m_slurmWorkers->value();
    request.partition = encoded(m_partition->text());
    request.account = encoded(m_account->text());
    request.timeLimit = encoded(m_timeLimit->text());
    return WorkerPlacement::slurm({"srun"}, request, std::move(worker));
}

void WorkerPlacementEditor::save() const
{
    QSettings settings;
    settings.setValue(kKindKey, int(kind()));
    settings.setValue(kHostsKey, m_hosts->text().trimmed());
    settings.setValue(kSlurmWorkersKey, m_slurmWorkers->value());
    settings.setValue(kPartitionKey, m_partition->text().trimmed());
    settings.setValue(kAccountKey, m_account->text().trimmed());
    settings.setValue(kTimeLimitKey, m_timeLimit->text().trimmed());
}

} // namespace kx::ui
