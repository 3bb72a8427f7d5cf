#pragma once

#include "core/domain/candidate.h"
#include "core/domain/op.h"
#include "core/domain/verdict.h"
#include "core/export/stagedfolder.h"
#include "core/util/expected.h"

#include <optional>
#include <string>
#include <vector>

namespace kx {

/**
 * Writes an accepted kernel as a folder someone can use outside Kernel Explorer: the CUDA source (kernel.cu), its
 * launch plan (launch_plan.json) and a PyTorch C++ extension (extension.cpp, see extensionSource()). The one export
 * rule of `kx export` and the GUI's Export Kernel.
 *
 * The folder is "<op>_<short id>" (exportFolderName()) under parentFolder, which is created when missing. Refuses
 * kernels without an accepted verdict in force, plans that do not parse and plans with library steps before anything
 * is written; a non-empty folder of that name is refused unless existing says to replace its files. The folder
 * appears whole or not at all (writeFolderAtOnce()).
 */
Expected<WrittenFolder> exportKernel(const Candidate &candidate, const Op &op, const std::optional<Verdict> &verdict,
                                     const std::string &parentFolder, ExistingFolder existing = ExistingFolder::Refuse);

/// Whether a kernel with this verdict in force may be exported: accepted and not retracted.
bool isExportable(const std::optional<Verdict> &verdict);

/// "<op>_<first 12 characters of the id>", the op's name made an identifier (exportIdentifier()).
std::string exportFolderName(const Candidate &candidate, const Op &op);

} // namespace kx
