#pragma once

#include "ui/common/latestjob.h"

#include "core/plan/assemblylines.h"

#include <QObject>
#include <QString>

namespace kx::ui {

/// What NVRTC made of a candidate for one arch: its PTX and, where a disassembler is installed, its SASS.
struct AssemblyResult
{
    QString candidateId;
    QString arch; ///< e.g. "sm_90".
    bool ok = false;
    QString ptx;
    QString sass; ///< Empty when sassNote says why there is none.
    QString sassNote;
    QString error;             ///< The compiler's message when !ok.
    AssemblyLineMap ptxLines;  ///< The source line of each PTX line.
    AssemblyLineMap sassLines; ///< The same for SASS (empty where the disassembler gave none).
};

/**
 * Compiles a candidate with NVRTC on the thread pool (NVRTC needs no GPU) and disassembles the cubin with
 * cuobjdump or nvdisasm. Only the newest request is delivered; one result per (candidate, arch) is kept, so
 * switching tabs does not compile again.
 */
class AssemblyLoader : public QObject
{
    Q_OBJECT

public:
    explicit AssemblyLoader(QObject *parent = nullptr);

    /// Starts a compile unless the same one is loaded or running; true when one was started.
    bool load(const QString &candidateId, const QString &source, const QString &arch);
    void clear();
    bool isLoading() const { return m_loading; }
    bool hasResult(const QString &candidateId, const QString &arch) const;
    const AssemblyResult &result() const { return m_result; }

    /// The arch a GPU of this compute capability runs, "sm_90a" for "9.0" (empty or malformed: kDefaultArch).
    static QString archFromCapability(const QString &capability);
    /// Compiles and disassembles; the work of load(), callable on any thread.
    static AssemblyResult assemble(const QString &candidateId, const QString &source, const QString &arch);

signals:
    void loaded(const kx::ui::AssemblyResult &result);

private:
    LatestJob m_assembly;
    bool m_loading = false;
    QString m_pendingId;
    QString m_pendingArch;
    AssemblyResult m_result;
};

} // namespace kx::ui
