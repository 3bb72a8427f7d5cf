#pragma once

#include <QObject>
#include <QString>

namespace kx::ui {

/**
 * Exports a stored kernel as a PyTorch extension folder (kx::exportKernel, core/export/kernelexport.h): reads the
 * candidate, its op and its verdict from the archive and writes the folder on a pool thread. One export at a time is
 * not enforced: each request answers with its own signal.
 */
class KernelExporter : public QObject
{
    Q_OBJECT

public:
    explicit KernelExporter(QObject *parent = nullptr);

    void exportKernel(const QString &archivePath, const QString &candidateId, const QString &parentFolder);

signals:
    void exported(const QString &folder);
    void failed(const QString &message);
};

} // namespace kx::ui
