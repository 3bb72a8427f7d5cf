#pragma once

#include "core/plan/assemblylines.h"

#include <QObject>

#include <map>

namespace kx::ui {

class CodeView;

/**
 * Links a kernel's source with its PTX and SASS through NVRTC's line information, both ways: the cursor on a
 * source line marks the assembly lines it became (and scrolls them into view); the cursor on an assembly line
 * marks its source line and every assembly line of that source line.
 */
class AssemblyLinker : public QObject
{
    Q_OBJECT

public:
    explicit AssemblyLinker(CodeView *source, QObject *parent = nullptr);

    /// An assembly view and the map of its lines (an empty map: nothing is linked).
    void setAssembly(CodeView *view, AssemblyLineMap map);
    /// Forgets every map and mark (another kernel).
    void clear();

private:
    void watch(CodeView *view);
    void sourceLineChosen(int line);
    void assemblyLineChosen(CodeView *view, int line);

    CodeView *m_source;
    std::map<CodeView *, AssemblyLineMap> m_maps;
};

} // namespace kx::ui
