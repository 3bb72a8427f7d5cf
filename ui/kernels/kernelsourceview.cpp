#include "ui/kernels/kernelsourceview.h"

#include "ui/common/cudalexer.h"

namespace kx::ui {

KernelSourceView::KernelSourceView(QWidget *parent)
    : CodeView(new CudaLexer, parent)
{}

CudaLexer *KernelSourceView::cudaLexer() const
{
    return qobject_cast<CudaLexer *>(lexer());
}

} // namespace kx::ui
