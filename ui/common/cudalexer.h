#pragma once

#include <Qsci/qscilexercpp.h>

namespace kx::ui {

/// C++ highlighting plus CUDA's qualifiers (keywords), built-in variables and intrinsics (secondary
/// keywords) and vector types (global classes).
class CudaLexer : public QsciLexerCPP
{
    Q_OBJECT

public:
    explicit CudaLexer(QObject *parent = nullptr);

    const char *language() const override;
    const char *keywords(int set) const override;
    QColor defaultColor(int style) const override;
    QFont defaultFont(int style) const override;
    QString description(int style) const override;
};

} // namespace kx::ui
