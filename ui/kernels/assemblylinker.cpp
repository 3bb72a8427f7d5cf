#include "ui/kernels/assemblylinker.h"

#include "ui/common/codeview.h"

namespace kx::ui {

AssemblyLinker::AssemblyLinker(CodeView *source, QObject *parent)
    : QObject(parent)
    , m_source(source)
{
    connect(m_source, &QsciScintilla::cursorPositionChanged, this, [this](int line, int) { sourceLineChosen(line); });
}

void AssemblyLinker::setAssembly(CodeView *view, AssemblyLineMap map)
{
    if (m_maps.count(view) == 0)
        watch(view);
    m_maps[view] = std::move(map);
    // What the source cursor is on now shows at once.
    int line = 0, index = 0;
    m_source->getCursorPosition(&line, &index);
    view->highlightLines(m_maps[view].assemblyLinesOf(line + 1), true);
}

void AssemblyLinker::clear()
{
    for (auto &[view, map] : m_maps) {
        map = {};
        view->highlightLines({});
    }
    m_source->highlightLines({});
}

void AssemblyLinker::watch(CodeView *view)
{
    connect(view, &QsciScintilla::cursorPositionChanged, this,
            [this, view](int line, int) { assemblyLineChosen(view, line); });
}

void AssemblyLinker::sourceLineChosen(int line)
{
    for (auto &[view, map] : m_maps)
        view->highlightLines(map.assemblyLinesOf(line + 1), true);
    m_source->highlightLines({});
}

void AssemblyLinker::assemblyLineChosen(CodeView *chosen, int line)
{
    const int sourceLine = m_maps[chosen].sourceLineOf(line);
    m_source->highlightLines(sourceLine > 0 ? std::vector<int>{sourceLine - 1} : std::vector<int>{}, true);
    for (auto &[view, map] : m_maps)
        view->highlightLines(map.assemblyLinesOf(sourceLine), view != chosen);
}

} // namespace kx::ui
