#pragma once

#include "core/domain/candidate.h"
#include "core/domain/op.h"
#include "core/domain/verdict.h"
#include "core/util/expected.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace kx::ui {

/**
 * Writes an accepted kernel as a folder someone can use outside Kernel Explorer: the CUDA source
 * (kernel.cu), its launch plan (launch_plan.json) and a PyTorch C++ extension (extension.cpp) that
 * launches the plan's kernel steps with grid/block sizes computed from the input shapes at run time.
 */
class KernelExport
{
public:
    struct Result
    {
        QString folder;
        QStringList files;                  ///< Absolute paths of what was written.
    };

    /// Writes into a new folder "<op>_<short id>" under parentFolder. Refuses kernels without an
    /// accepted verdict, plans that do not parse and plans with library steps.
    static Expected<Result> write(const Candidate &candidate, const Op &op, const std::optional<Verdict> &verdict,
                                  const QString &parentFolder);

    /// The extension source alone (what write() puts in extension.cpp).
    static Expected<std::string> extensionSource(const Candidate &candidate, const Op &op);

    /// A name usable as a C++ identifier and a folder name.
    static QString identifier(const QString &text);
};

} // namespace kx::ui
