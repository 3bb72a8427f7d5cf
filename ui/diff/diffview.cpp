#include "ui/diff/diffview.h"

#include "ui/common/archivereader.h"
#include "ui/common/cudalexer.h"
#include "ui/common/format.h"
#include "ui/common/uiresources.h"
#include "ui/diff/diffpane.h"

#include <Qsci/qscilexerjson.h>

#include <QAction>
#include <QComboBox>
#include <QCompleter>
#include <QHBoxLayout>
#include <QJsonDocument>
#include <QLabel>
#include <QLineEdit>
#include <QTabWidget>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

#include <optional>
#include <utility>

namespace kx::ui {

struct DiffView::Loaded
{
    std::optional<Candidate> left;
    std::optional<Candidate> right;
    std::vector<CandidateSummary> choices; ///< Candidates of the right one's op, oldest first (no sources).
    bool choicesKept = false;              ///< The op's choices are those shown already: not read again.
};

namespace {

/// Plans are compared in one canonical layout, so that formatting alone never shows as a change.
QString canonicalPlan(const std::string &text)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(QByteArray::fromStdString(text), &error);
    if (error.error != QJsonParseError::NoError || document.isNull())
        return QString::fromStdString(text);
    return QString::fromUtf8(document.toJson(QJsonDocument::Indented));
}

CandidateSummary summaryOf(const Candidate &candidate)
{
    CandidateSummary summary;
    summary.id = candidate.id;
    summary.opName = candidate.opName;
    summary.origin = candidate.origin;
    summary.operatorName = candidate.operatorName;
    summary.description = candidate.description;
    summary.createdAtMs = candidate.createdAtMs;
    return summary;
}

QString choiceLabel(const CandidateSummary &candidate)
{
    QString label = Format::shortId(candidate.id) + QStringLiteral("  ") + Format::origin(candidate.origin);
    if (!candidate.operatorName.empty())
        label += QStringLiteral(" (%1)").arg(Format::text(candidate.operatorName));
    if (candidate.bestSpeedup > 0)
        label += QStringLiteral(" · ") + Format::speedup(candidate.bestSpeedup);
    // The description too, so that typing "stages" or "tensor" finds kernels; long ones are cut.
    constexpr int kDescription = 60;
    const QString description = Format::text(candidate.description).simplified();
    if (!description.isEmpty())
        label +=
            QStringLiteral(" · ")
            + (description.size() > kDescription ? description.left(kDescription - 1) + QChar(0x2026) : description);
    return label;
}

} // namespace

DiffView::DiffView(QWidget *parent)
    : ArchivePage(parent)
    , m_leftCombo(new QComboBox(this))
    , m_rightCombo(new QComboBox(this))
    , m_summary(new QLabel(this))
    , m_tabs(new QTabWidget(this))
    , m_sourcePane(new DiffPane(new CudaLexer, new CudaLexer, this))
    , m_planPane(new DiffPane(new QsciLexerJSON, new QsciLexerJSON, this))
    , m_nextAction(new QAction(tr("Next Change"), this))
    , m_previousAction(new QAction(tr("Previous Change"), this))
{
    m_leftCombo->setObjectName(QStringLiteral("leftCandidate"));
    m_rightCombo->setObjectName(QStringLiteral("rightCandidate"));
    m_leftCombo->setToolTip(tr("The older kernel (left)"));
    m_rightCombo->setToolTip(tr("The newer kernel (right)"));
    for (QComboBox *combo : {m_leftCombo, m_rightCombo}) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToContents);
        // Searchable: typing part of an id, an origin or a description offers the kernels that match.
        combo->setEditable(true);
        combo->setInsertPolicy(QComboBox::NoInsert);
        combo->completer()->setFilterMode(Qt::MatchContains);
        combo->completer()->setCompletionMode(QCompleter::PopupCompletion);
        combo->completer()->setCaseSensitivity(Qt::CaseInsensitive);
        combo->lineEdit()->setPlaceholderText(tr("Type to find a kernel"));
        connect(combo, &QComboBox::currentIndexChanged, this, &DiffView::onChoiceChanged);
    }
    m_summary->setObjectName(QStringLiteral("diffSummary"));

    m_nextAction->setShortcuts({QKeySequence(Qt::ALT | Qt::Key_Down), QKeySequence(Qt::Key_F8)});
    m_previousAction->setShortcuts({QKeySequence(Qt::ALT | Qt::Key_Up), QKeySequence(Qt::SHIFT | Qt::Key_F8)});
    for (QAction *action : {m_nextAction, m_previousAction}) {
        action->setShortcutContext(Qt::WidgetWithChildrenShortcut);
        addAction(action);
    }
    m_nextAction->setToolTip(tr("Next change (%1)").arg(m_nextAction->shortcut().toString(QKeySequence::NativeText)));
    m_previousAction->setToolTip(
        tr("Previous change (%1)").arg(m_previousAction->shortcut().toString(QKeySequence::NativeText)));
    m_nextAction->setIcon(icon(QStringLiteral("change-next")));
    m_previousAction->setIcon(icon(QStringLiteral("change-previous")));
    m_nextAction->setObjectName(QStringLiteral("nextChangeAction"));
    m_previousAction->setObjectName(QStringLiteral("previousChangeAction"));
    connect(m_nextAction, &QAction::triggered, this, [this] { currentPane()->nextChange(); });
    connect(m_previousAction, &QAction::triggered, this, [this] { currentPane()->previousChange(); });

    auto previousButton = new QToolButton(this);
    previousButton->setDefaultAction(m_previousAction);
    auto nextButton = new QToolButton(this);
    nextButton->setDefaultAction(m_nextAction);

    auto bar = new QHBoxLayout;
    bar->setContentsMargins(6, 4, 6, 4);
    bar->addWidget(m_leftCombo);
    bar->addWidget(new QLabel(QStringLiteral("→"), this));
    bar->addWidget(m_rightCombo);
    bar->addWidget(previousButton);
    bar->addWidget(nextButton);
    bar->addWidget(m_summary, 1);

    m_sourcePane->setObjectName(QStringLiteral("sourceDiff"));
    m_planPane->setObjectName(QStringLiteral("planDiff"));
    m_tabs->setDocumentMode(true);
    m_tabs->addTab(m_sourcePane, tr("CUDA Source"));
    m_tabs->addTab(m_planPane, tr("Launch Plan"));
    connect(m_tabs, &QTabWidget::currentChanged, this, &DiffView::updateSummary);
    for (DiffPane *pane : {m_sourcePane, m_planPane})
        connect(pane, &DiffPane::currentHunkChanged, this, &DiffView::updateSummary);

    auto layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    layout->addLayout(bar);
    layout->addWidget(m_tabs, 1);
    showMessage(tr("Select a kernel to compare it with its parent."));
}

void DiffView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    if (const auto request = std::exchange(m_deferred, std::nullopt))
        load(request->leftId, request->rightId, request->leftIsFirstParent);
}

DiffPane *DiffView::currentPane() const
{
    return m_tabs->currentWidget() == m_planPane ? m_planPane : m_sourcePane;
}

void DiffView::setArchive(const ArchiveRef &archive)
{
    m_archive = archive;
    m_load.invalidate();
    m_loading = false;
    m_leftId.clear();
    m_rightId.clear();
    m_requestedRightId.clear();
    m_deferred.reset();
    m_choices.clear();
    m_choicesOp.clear();
    fillChoices(m_leftCombo, {});
    fillChoices(m_rightCombo, {});
    m_sourcePane->clear();
    m_planPane->clear();
    showMessage(tr("Select a kernel to compare it with its parent."));
}

void DiffView::showCandidate(const QString &candidateId)
{
    // A comparison asked for on its right-hand kernel stays: selecting that kernel (which the request may
    // itself have caused) does not replace it with "the kernel and its parent".
    if (candidateId.isEmpty() || candidateId == m_requestedRightId)
        return;
    load({}, candidateId, true);
}

void DiffView::compare(const QString &leftId, const QString &rightId)
{
    load(leftId, rightId, false);
}

void DiffView::load(const QString &leftId, const QString &rightId, bool leftIsFirstParent)
{
    if (m_archive.empty() || rightId.isEmpty())
        return;
    m_requestedRightId = rightId;
    if (m_deferWhileHidden && !isVisible()) {
        m_deferred = Request{leftId, rightId, leftIsFirstParent};
        return;
    }
    m_deferred.reset();
    m_loading = true;
    const std::string right = rightId.toStdString();
    const std::string left = leftId.toStdString();
    readArchiveAsync(m_archive, [left, right, leftIsFirstParent, shownOp = m_choicesOp](const Archive &archive) {
        Loaded loaded;
        loaded.right = archive.candidate(right);
        if (!loaded.right)
            return loaded;
        if (leftIsFirstParent)
            loaded.left =
                loaded.right->parentIds.empty() ? loaded.right : archive.candidate(loaded.right->parentIds.front());
        else
            loaded.left = archive.candidate(left);
        // The choices depend on the op only: a selection within it does not read them again (at 30k kernels
        // they cost a second).
        if (loaded.right->opName == shownOp) {
            loaded.choicesKept = true;
            return loaded;
        }
        CandidateFilter filter;
        filter.opName = loaded.right->opName;
        loaded.choices = archive.candidateSummaries(filter);
        std::stable_sort(loaded.choices.begin(), loaded.choices.end(),
                         [](const auto &a, const auto &b) { return a.createdAtMs < b.createdAtMs; });
        return loaded;
    }).then(this, m_load.guard([this, leftId, rightId](const ReadResult<Loaded> &result) {
        m_loading = false;
        if (!result.ok()) {
            showMessage(tr("The kernels could not be read: %1").arg(result.error));
            emit loaded(m_summary->text());
        } else if (!result.value.right || !result.value.left) {
            const QString missing = !result.value.right ? rightId : leftId;
            showMessage(tr("The candidate %1 is not in the archive.").arg(missing.left(12)));
            emit loaded(m_summary->text());
        } else {
            showLoaded(result.value);
            emit loaded({});
        }
    }));
}

void DiffView::showLoaded(const Loaded &result)
{
    m_leftId = Format::text(result.left->id);
    m_rightId = Format::text(result.right->id);
    bool changed = !result.choicesKept;
    if (changed) {
        m_choices = result.choices;
        m_choicesOp = result.right->opName;
    }
    // The left one may belong to another op; offer it too.
    const bool leftListed = std::any_of(m_choices.begin(), m_choices.end(),
                                        [&](const CandidateSummary &c) { return c.id == result.left->id; });
    if (!leftListed) {
        m_choices.insert(m_choices.begin(), summaryOf(*result.left));
        changed = true;
    }
    if (changed) {
        fillChoices(m_leftCombo, m_leftId);
        fillChoices(m_rightCombo, m_rightId);
    } else {
        selectChoice(m_leftCombo, m_leftId);
        selectChoice(m_rightCombo, m_rightId);
    }
    m_sourcePane->setTexts(Format::text(result.left->source), Format::text(result.right->source));
    m_planPane->setTexts(canonicalPlan(result.left->launchPlan), canonicalPlan(result.right->launchPlan));
    m_tabs->setEnabled(true);
    updateSummary();
}

void DiffView::selectChoice(QComboBox *combo, const QString &selectedId)
{
    m_updatingChoices = true;
    combo->setCurrentIndex(combo->findData(selectedId));
    m_updatingChoices = false;
}

void DiffView::reload()
{
    m_choicesOp.clear(); // new kernels: the next comparison reads the op's choices again
}

void DiffView::fillChoices(QComboBox *combo, const QString &selectedId)
{
    m_updatingChoices = true;
    combo->clear();
    for (const CandidateSummary &candidate : m_choices) {
        combo->addItem(choiceLabel(candidate), Format::text(candidate.id));
        combo->setItemData(combo->count() - 1, Format::text(candidate.description), Qt::ToolTipRole);
    }
    combo->setCurrentIndex(combo->findData(selectedId));
    combo->setEnabled(combo->count() > 0);
    m_updatingChoices = false;
}

void DiffView::onChoiceChanged()
{
    if (m_updatingChoices)
        return;
    const QString left = m_leftCombo->currentData().toString();
    const QString right = m_rightCombo->currentData().toString();
    if (!left.isEmpty() && !right.isEmpty() && (left != m_leftId || right != m_rightId))
        compare(left, right);
}

QString DiffView::summaryText() const
{
    return m_summary->text();
}

void DiffView::updateSummary()
{
    if (m_leftId.isEmpty())
        return;
    const DiffPane *pane = currentPane();
    const TextDiff &diff = pane->diff();
    m_nextAction->setEnabled(pane->currentHunk() + 1 < pane->hunkCount());
    m_previousAction->setEnabled(pane->currentHunk() > 0);
    if (m_leftId == m_rightId) {
        m_summary->setText(tr("The kernel has no parent; choose another one to compare with."));
        return;
    }
    if (diff.isIdentical()) {
        m_summary->setText(tr("No differences."));
        return;
    }
    QString text = tr("%n change(s): ", nullptr, pane->hunkCount())
                   + tr("%1 changed, %2 added, %3 removed lines").arg(diff.changed).arg(diff.added).arg(diff.removed);
    if (pane->currentHunk() >= 0)
        text += QStringLiteral(" · ") + tr("change %1 of %2").arg(pane->currentHunk() + 1).arg(pane->hunkCount());
    m_summary->setText(text);
}

void DiffView::showMessage(const QString &message)
{
    m_summary->setText(message);
    m_tabs->setEnabled(false);
    m_nextAction->setEnabled(false);
    m_previousAction->setEnabled(false);
}

} // namespace kx::ui
