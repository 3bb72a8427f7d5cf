#pragma once

#include "ui/common/codeview.h"

namespace kx::ui {

class CudaLexer;

/// A candidate's CUDA source, read-only, with CUDA-aware highlighting.
class KernelSourceView : public CodeView
{
    Q_OBJECT

public:
    explicit KernelSourceView(QWidget *parent = nullptr);

    CudaLexer *cudaLexer() const;
};

} // namespace kx::ui
