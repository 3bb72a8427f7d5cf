#include "ui/kernels/assemblyloader.h"

#include "core/plan/assemblylines.h"
#include "core/plan/disassembler.h"
#include "core/plan/nvrtccompiler.h"

#include <QtConcurrent/QtConcurrentRun>

namespace kx::ui {

AssemblyLoader::AssemblyLoader(QObject *parent)
    : QObject(parent)
{}

bool AssemblyLoader::hasResult(const QString &candidateId, const QString &arch) const
{
    return !candidateId.isEmpty() && m_result.candidateId == candidateId && m_result.arch == arch;
}

bool AssemblyLoader::load(const QString &candidateId, const QString &source, const QString &arch)
{
    if (hasResult(candidateId, arch) || (m_loading && m_pendingId == candidateId && m_pendingArch == arch))
        return false;
    m_loading = true;
    m_pendingId = candidateId;
    m_pendingArch = arch;
    QtConcurrent::run([candidateId, source, arch] {
        return assemble(candidateId, source, arch);
    }).then(this, m_assembly.guard([this](const AssemblyResult &result) {
        m_loading = false;
        m_result = result;
        emit loaded(m_result);
    }));
    return true;
}

void AssemblyLoader::clear()
{
    m_assembly.invalidate();
    m_loading = false;
    m_pendingId.clear();
    m_pendingArch.clear();
    m_result = {};
}

QString AssemblyLoader::archFromCapability(const QString &capability)
{
    const std::string arch = archForComputeCapability(capability.trimmed().toStdString());
    return QString::fromLatin1(arch.empty() ? kDefaultArch : arch.c_str());
}

AssemblyResult AssemblyLoader::assemble(const QString &candidateId, const QString &source, const QString &arch)
{
    AssemblyResult result;
    result.candidateId = candidateId;
    result.arch = arch;
    if (!NvrtcCompiler::available()) {
        result.error = tr("This build has no NVRTC (the CUDA toolkit was missing when it was built).");
        return result;
    }
    CompileOptions options;
    options.arch = arch.toStdString();
    options.wantPtx = true;
    options.lineInfo = true; // to link source lines with PTX and SASS lines
    const CompileResult compiled = NvrtcCompiler().compile(source.toStdString(), options);
    if (!compiled.ok) {
        result.error = QString::fromStdString(compiled.stats.log.empty() ? compiled.error : compiled.stats.log);
        return result;
    }
    result.ok = true;
    result.ptx = QString::fromStdString(compiled.ptx);
    if (Disassembler::findTool().empty()) {
        result.sassNote = tr("No SASS: neither cuobjdump nor nvdisasm was found (searched %1).")
                              .arg(QString::fromStdString(Disassembler::searchedPlaces()));
    } else if (const Expected<std::string> sass = Disassembler::sass(compiled.cubin); !sass) {
        result.sassNote = tr("No SASS: %1.").arg(QString::fromStdString(sass.error().message));
    } else {
        result.sass = QString::fromStdString(*sass);
        result.sassLines = mapSassLines(*sass);
    }
    result.ptxLines = mapPtxLines(compiled.ptx);
    return result;
}

} // namespace kx::ui
