#pragma once

#include "core/domain/candidate.h"
#include "core/domain/evaluation.h"

#include <QHash>
#include <QString>
#include <QStringList>
#include <QVector>

#include <optional>

namespace kx {
class Archive;
}

namespace kx::ui {

/// How a lineage node is coloured: what its evaluations on the chosen GPU say.
enum class LineageOutcome { Pending, CompileError, Incorrect, Failure, Correct };

/// One candidate of a run as the lineage shows it.
struct LineageNode
{
    QString id;
    QStringList parentIds; ///< First parent first (crossover has two).
    QString operatorName;
    QString description;
    Origin origin = Origin::Translated;
    int generation = 0;
    QHash<QString, EvalStatus> statusByGpu; ///< The most favourable status per GPU name.
    QHash<QString, double> speedupByGpu;    ///< The best speedup per GPU name (correct evaluations only).
    std::optional<bool> accepted;           ///< Current verdict.
    bool flaggedImpossible = false;         ///< An evaluation ran faster than the roofline allows.

    /// Whether it can be the run's best (kx::countsTowardsBest, and not rejected).
    bool canBeBest() const { return !flaggedImpossible && accepted != std::optional<bool>(false); }
};

/**
 * The lineage of one run: candidates, their parent links inside the run and their results. Plain data
 * (implicitly shared Qt containers), so a copy for a background layout is cheap. Adding is idempotent:
 * the same candidate from a live event and from the archive merges into one node.
 */
class LineageGraph
{
public:
    /// Adds a node, or merges into the existing one of that id. Returns its index and whether it is new.
    int addNode(const LineageNode &node, bool *added = nullptr);
    static LineageNode nodeFromCandidate(const Candidate &candidate, int generation);
    /// Merges an evaluation into its candidate's node; false when the candidate is not in the graph.
    bool addEvaluation(const Evaluation &evaluation);
    bool setVerdict(const QString &id, std::optional<bool> accepted);
    void clear();

    int size() const { return int(m_nodes.size()); }
    bool isEmpty() const { return m_nodes.isEmpty(); }
    int indexOf(const QString &id) const { return m_index.value(id, -1); }
    const LineageNode &node(int index) const { return m_nodes.at(index); }
    /// Parents and children inside this run (parents from other runs are not nodes here).
    const QVector<int> &parents(int index) const { return m_parents.at(index); }
    const QVector<int> &children(int index) const { return m_children.at(index); }

    /// The outcome on gpu (empty: on any GPU, the most favourable).
    LineageOutcome outcome(int index, const QString &gpu = {}) const;
    /// The best speedup on gpu (empty: on any GPU); 0 when not correct there.
    double speedup(int index, const QString &gpu = {}) const;
    QStringList gpuNames() const;

    /// The correct node with the highest speedup on gpu, or -1.
    int bestNode(const QString &gpu = {}) const;
    /// The nodes from a root to index, following first parents.
    QVector<int> pathFromRoot(int index) const;
    /// Nodes to show when failed branches are collapsed: a node is hidden when neither it nor any descendant
    /// is correct (or still pending) on gpu; roots stay.
    QVector<bool> visibleWithFailedCollapsed(const QString &gpu = {}) const;
    /// A generation's failures grouped: failed leaves (failed on gpu, no children) made from the same first
    /// parent in the same generation form a group when there are two or more; entry i is the group's first
    /// member (the one that stands for it), or -1 where node i is in no group.
    QVector<int> failureGroups(const QString &gpu = {}) const;
    /// Nodes to show with failures grouped: every node but the members of a group other than its first.
    QVector<bool> visibleWithFailuresGrouped(const QString &gpu = {}) const;
    /// Nodes to show in the elite view of a large run: the top fastest nodes on gpu that can be the best, every
    /// ancestor of theirs, and the other children of each of those (what else was tried at each step); roots stay.
    QVector<bool> visibleElite(int top, const QString &gpu = {}) const;
    /// What a lineage filter shows: nodes of the kind on gpu, and every ancestor of theirs (so each stays linked
    /// to its root); roots stay.
    enum class Show { All, Correct, FasterThanEager, Failed };
    QVector<bool> visibleFiltered(Show show, const QString &gpu = {}) const;
    /// Nodes whose id starts with text, or whose operator or description contains it (case-insensitive).
    QVector<int> find(const QString &text) const;

private:
    /// The nodes and every ancestor of theirs (parents inside the run, transitively).
    QVector<bool> withAncestors(const QVector<int> &nodes) const;

    QVector<LineageNode> m_nodes;
    QHash<QString, int> m_index;
    QVector<QVector<int>> m_parents;
    QVector<QVector<int>> m_children;
    QHash<QString, QVector<int>> m_waitingForParent; // Parent id -> children added before it.
};

/// The lineage of a run as the archive holds it: only what the lineage draws (no sources or samples). Any thread.
LineageGraph readLineage(const Archive &archive, std::int64_t runId);

} // namespace kx::ui
