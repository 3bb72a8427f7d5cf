#pragma once

#include <QString>

namespace kx::ui {

/**
 * The sample archive: real searches (H200 GPUs: softmax on two cards with its best kernels re-timed on both, an
 * nn.Linear + ReLU and a fused elementwise chain) shipped as an export and imported once into an archive of the
 * installed schema next to the default archive, where it can be browsed and judged like any other.
 */
class SampleArchive
{
public:
    /// The shipped export: share/kernel-explorer beside the installed programs, else the source tree's copy (a
    /// build run in place). Empty when neither exists.
    static QString exportFile();
    /// Where the sample's archive lives: "sample.kxdb" beside the default archive.
    static QString archivePath();
    /// The sample's archive, imported from the export first when it does not exist yet; empty (with error set)
    /// when that fails, and then no file is left behind.
    static QString prepare(QString *error);
};

} // namespace kx::ui
