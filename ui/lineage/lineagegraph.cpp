#include "ui/lineage/lineagegraph.h"

#include "core/archive/archive.h"

#include <algorithm>

namespace kx::ui {

namespace {

/// Higher is more favourable, so that a node shows its best evaluation.
int rank(EvalStatus status)
{
    switch (status) {
    case EvalStatus::Correct: return 4;
    case EvalStatus::Incorrect: return 3;
    case EvalStatus::LaunchError:
    case EvalStatus::Fault:
    case EvalStatus::Timeout:
    case EvalStatus::Crashed: return 2;
    case EvalStatus::CompileError:
    case EvalStatus::PlanError: return 1;
    }
    return 0;
}

LineageOutcome outcomeOf(EvalStatus status)
{
    switch (rank(status)) {
    case 4: return LineageOutcome::Correct;
    case 3: return LineageOutcome::Incorrect;
    case 2: return LineageOutcome::Failure;
    default: return LineageOutcome::CompileError;
    }
}

} // namespace

LineageNode LineageGraph::nodeFromCandidate(const Candidate &candidate, int generation)
{
    LineageNode node;
    node.id = QString::fromStdString(candidate.id);
    for (const std::string &parent : candidate.parentIds)
        node.parentIds << QString::fromStdString(parent);
    node.operatorName = QString::fromStdString(candidate.operatorName);
    node.description = QString::fromStdString(candidate.description);
    node.origin = candidate.origin;
    node.generation = generation;
    return node;
}

int LineageGraph::addNode(const LineageNode &node, bool *added)
{
    if (const int existing = indexOf(node.id); existing >= 0) {
        LineageNode &old = m_nodes[existing];
        for (auto it = node.statusByGpu.begin(); it != node.statusByGpu.end(); ++it) {
            const auto current = old.statusByGpu.constFind(it.key());
            if (current == old.statusByGpu.constEnd() || rank(*it) > rank(*current))
                old.statusByGpu.insert(it.key(), *it);
        }
        for (auto it = node.speedupByGpu.begin(); it != node.speedupByGpu.end(); ++it)
            old.speedupByGpu.insert(it.key(), std::max(old.speedupByGpu.value(it.key()), *it));
        if (node.accepted)
            old.accepted = node.accepted;
        old.flaggedImpossible = old.flaggedImpossible || node.flaggedImpossible;
        if (added)
            *added = false;
        return existing;
    }
    const int index = int(m_nodes.size());
    m_nodes.append(node);
    m_index.insert(node.id, index);
    m_parents.append(QVector<int>());
    m_children.append(QVector<int>());
    for (const QString &parentId : node.parentIds) {
        const int parent = indexOf(parentId);
        if (parent >= 0) {
            if (!m_parents[index].contains(parent)) {
                m_parents[index].append(parent);
                m_children[parent].append(index);
            }
        } else {
            m_waitingForParent[parentId].append(index);
        }
    }
    // Children that arrived first (a live event can overtake the archive read) now find their parent.
    const QVector<int> waiting = m_waitingForParent.take(node.id);
    for (int child : waiting) {
        m_parents[child].append(index);
        // Keep the parent order of the candidate: the first parent is the one navigation follows.
        const QStringList &order = m_nodes.at(child).parentIds;
        std::sort(m_parents[child].begin(), m_parents[child].end(),
                  [&](int a, int b) { return order.indexOf(m_nodes.at(a).id) < order.indexOf(m_nodes.at(b).id); });
        m_children[index].append(child);
    }
    std::sort(m_children[index].begin(), m_children[index].end());
    if (added)
        *added = true;
    return index;
}

bool LineageGraph::addEvaluation(const Evaluation &evaluation)
{
    const int index = indexOf(QString::fromStdString(evaluation.candidateId));
    if (index < 0)
        return false;
    LineageNode update = m_nodes.at(index);
    update.statusByGpu.clear();
    update.speedupByGpu.clear();
    update.accepted.reset();
    const QString gpu = QString::fromStdString(evaluation.gpu.name);
    update.statusByGpu.insert(gpu, evaluation.status);
    if (evaluation.status == EvalStatus::Correct)
        update.speedupByGpu.insert(gpu, evaluation.speedup);
    update.flaggedImpossible = evaluation.status == EvalStatus::Correct && !countsTowardsBest(evaluation);
    addNode(update);
    return true;
}

bool LineageGraph::setVerdict(const QString &id, std::optional<bool> accepted)
{
    const int index = indexOf(id);
    if (index < 0)
        return false;
    m_nodes[index].accepted = accepted;
    return true;
}

void LineageGraph::clear()
{
    *this = LineageGraph();
}

LineageOutcome LineageGraph::outcome(int index, const QString &gpu) const
{
    const LineageNode &node = m_nodes.at(index);
    if (!gpu.isEmpty()) {
        const auto it = node.statusByGpu.constFind(gpu);
        return it == node.statusByGpu.constEnd() ? LineageOutcome::Pending : outcomeOf(*it);
    }
    int best = 0;
    std::optional<EvalStatus> status;
    for (EvalStatus s : node.statusByGpu) {
        if (!status || rank(s) > best) {
            status = s;
            best = rank(s);
        }
    }
    return status ? outcomeOf(*status) : LineageOutcome::Pending;
}

double LineageGraph::speedup(int index, const QString &gpu) const
{
    const LineageNode &node = m_nodes.at(index);
    if (!gpu.isEmpty())
        return node.speedupByGpu.value(gpu);
    double best = 0;
    for (double s : node.speedupByGpu)
        best = std::max(best, s);
    return best;
}

QStringList LineageGraph::gpuNames() const
{
    QStringList names;
    for (const LineageNode &node : m_nodes)
        for (auto it = node.statusByGpu.begin(); it != node.statusByGpu.end(); ++it)
            if (!it.key().isEmpty() && !names.contains(it.key()))
                names << it.key();
    names.sort();
    return names;
}

int LineageGraph::bestNode(const QString &gpu) const
{
    int best = -1;
    double bestSpeedup = 0;
    for (int i = 0; i < size(); ++i) {
        if (outcome(i, gpu) != LineageOutcome::Correct || !m_nodes.at(i).canBeBest())
            continue;
        const double s = speedup(i, gpu);
        if (best < 0 || s > bestSpeedup) {
            best = i;
            bestSpeedup = s;
        }
    }
    return best;
}

QVector<int> LineageGraph::pathFromRoot(int index) const
{
    QVector<int> path;
    QVector<bool> seen(size(), false);
    for (int current = index; current >= 0 && !seen.at(current);) {
        seen[current] = true;
        path.prepend(current);
        current = m_parents.at(current).isEmpty() ? -1 : m_parents.at(current).first();
    }
    return path;
}

QVector<bool> LineageGraph::visibleWithFailedCollapsed(const QString &gpu) const
{
    // Children always come after their parents except when a live event overtook the archive read, so
    // propagate "has a live descendant" bottom-up until nothing changes (one pass in the usual case).
    QVector<bool> keep(size(), false);
    for (int i = 0; i < size(); ++i) {
        const LineageOutcome o = outcome(i, gpu);
        keep[i] = o == LineageOutcome::Correct || o == LineageOutcome::Pending || m_parents.at(i).isEmpty();
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = size() - 1; i >= 0; --i) {
            if (!keep.at(i))
                continue;
            for (int parent : m_parents.at(i)) {
                if (!keep.at(parent)) {
                    keep[parent] = true;
                    if (parent > i)
                        changed = true;
                }
            }
        }
    }
    return keep;
}

QVector<int> LineageGraph::failureGroups(const QString &gpu) const
{
    QVector<int> group(size(), -1);
    // (first parent, generation) -> the failed leaves made from it then, in index order.
    QHash<QPair<int, int>, QVector<int>> members;
    for (int i = 0; i < size(); ++i) {
        const LineageOutcome o = outcome(i, gpu);
        const bool failed =
            o == LineageOutcome::CompileError || o == LineageOutcome::Incorrect || o == LineageOutcome::Failure;
        if (failed && m_children.at(i).isEmpty() && !m_parents.at(i).isEmpty())
            members[qMakePair(m_parents.at(i).front(), m_nodes.at(i).generation)].push_back(i);
    }
    for (const QVector<int> &nodes : std::as_const(members)) {
        if (nodes.size() < 2)
            continue;
        for (int node : nodes)
            group[node] = nodes.front();
    }
    return group;
}

QVector<bool> LineageGraph::visibleWithFailuresGrouped(const QString &gpu) const
{
    const QVector<int> group = failureGroups(gpu);
    QVector<bool> keep(size(), true);
    for (int i = 0; i < size(); ++i)
        keep[i] = group.at(i) < 0 || group.at(i) == i;
    return keep;
}

QVector<bool> LineageGraph::visibleElite(int top, const QString &gpu) const
{
    QVector<int> ranked;
    for (int i = 0; i < size(); ++i)
        if (outcome(i, gpu) == LineageOutcome::Correct && m_nodes.at(i).canBeBest())
            ranked << i;
    std::stable_sort(ranked.begin(), ranked.end(), [&](int a, int b) { return speedup(a, gpu) > speedup(b, gpu); });
    if (ranked.size() > top)
        ranked.resize(std::max(0, top));

    QVector<bool> keep = withAncestors(ranked);
    const QVector<bool> line = keep; // the elite and their ancestors: what else was tried from each
    for (int node = 0; node < size(); ++node)
        if (line.at(node))
            for (int child : m_children.at(node))
                keep[child] = true;
    for (int i = 0; i < size(); ++i)
        if (m_parents.at(i).isEmpty())
            keep[i] = true;
    return keep;
}

QVector<bool> LineageGraph::withAncestors(const QVector<int> &nodes) const
{
    QVector<bool> keep(size(), false);
    QVector<int> line;
    for (int node : nodes)
        if (!keep.at(node)) {
            keep[node] = true;
            line << node;
        }
    for (int next = 0; next < line.size(); ++next)
        for (int parent : m_parents.at(line.at(next)))
            if (!keep.at(parent)) {
                keep[parent] = true;
                line << parent;
            }
    return keep;
}

QVector<bool> LineageGraph::visibleFiltered(Show show, const QString &gpu) const
{
    if (show == Show::All)
        return QVector<bool>(size(), true);
    QVector<int> matching;
    for (int i = 0; i < size(); ++i) {
        const LineageOutcome o = outcome(i, gpu);
        const bool matches =
            show == Show::Correct ? o == LineageOutcome::Correct
            : show == Show::FasterThanEager
                ? o == LineageOutcome::Correct && speedup(i, gpu) > 1.0
                : o == LineageOutcome::CompileError || o == LineageOutcome::Incorrect || o == LineageOutcome::Failure;
        if (matches || m_parents.at(i).isEmpty())
            matching << i;
    }
    return withAncestors(matching);
}

QVector<int> LineageGraph::find(const QString &text) const
{
    QVector<int> matches;
    const QString needle = text.trimmed();
    if (needle.isEmpty())
        return matches;
    for (int i = 0; i < size(); ++i) {
        const LineageNode &node = m_nodes.at(i);
        if (node.id.startsWith(needle, Qt::CaseInsensitive) || node.operatorName.contains(needle, Qt::CaseInsensitive)
            || node.description.contains(needle, Qt::CaseInsensitive))
            matches << i;
    }
    return matches;
}

LineageGraph readLineage(const Archive &archive, std::int64_t runId)
{
    LineageGraph graph;
    std::map<std::string, int> generations;
    for (const auto &[id, generation] : archive.runGenerations(runId))
        generations.emplace(id, generation);
    // Only what the lineage draws: a 10k-node run read with sources and samples took seconds.
    for (const Candidate &candidate : archive.candidateHeadersOfRun(runId)) {
        const auto it = generations.find(candidate.id);
        graph.addNode(LineageGraph::nodeFromCandidate(candidate, it == generations.end() ? 0 : it->second));
    }
    for (const Evaluation &evaluation : archive.evaluationOutcomesOfRun(runId))
        graph.addEvaluation(evaluation);
    CandidateFilter filter;
    filter.runId = runId;
    for (const CandidateSummary &row : archive.candidateSummaries(filter))
        if (row.accepted)
            graph.setVerdict(QString::fromStdString(row.id), row.accepted);
    return graph;
}

} // namespace kx::ui
