#include "core/export/kernelexport.h"

#include "core/export/extensionsource.h"

#include <filesystem>

namespace kx {

bool isExportable(const std::optional<Verdict> &verdict)
{
    return verdict && verdict->accepted && !verdict->retracted;
}

std::string exportFolderName(const Candidate &candidate, const Op &op)
{
    return exportIdentifier(op.name) + '_' + candidate.id.substr(0, 12);
}

Expected<WrittenFolder> exportKernel(const Candidate &candidate, const Op &op, const std::optional<Verdict> &verdict,
                                     const std::string &parentFolder, ExistingFolder existing)
{
    if (!isExportable(verdict))
        return Error{"only accepted kernels are exported; " + candidate.id.substr(0, 12) + " has no accepted verdict"};
    Expected<std::string> extension = extensionSource(candidate, op);
    if (!extension)
        return extension.error();

    const std::string folder = (std::filesystem::path(parentFolder) / exportFolderName(candidate, op)).string();
    return writeFolderAtOnce(
        folder,
        {{"kernel.cu", candidate.source}, {"launch_plan.json", candidate.launchPlan}, {"extension.cpp", *extension}},
        existing);
}

} // namespace kx
