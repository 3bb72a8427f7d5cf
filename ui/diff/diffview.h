#pragma once

#include "ui/common/archivepage.h"
#include "ui/common/latestjob.h"

#include "core/archive/archive.h"
#include "core/domain/candidate.h"

#include <optional>
#include <vector>

class QAction;
class QComboBox;
class QLabel;
class QTabWidget;

namespace kx::ui {

class DiffPane;

/**
 * The diff page: any two candidates of an op side by side, source and launch plan. Following the
 * selection it compares the candidate with its first parent; either side can be changed. Candidates
 * are read off the GUI thread; a newer request supersedes an older one.
 */
class DiffView : public ArchivePage
{
    Q_OBJECT

public:
    explicit DiffView(QWidget *parent = nullptr);

    void setArchive(const ArchiveRef &archive) override;
    /// The archive has new kernels (a reload): the choices are read again with the next comparison.
    void reload() override;
    /// Compares the candidate with its first parent (or with itself when it has none).
    void showCandidate(const QString &candidateId) override;
    /// Previous and next change.
    QList<QAction *> pageActions() const override { return {m_previousAction, m_nextAction}; }
    /// Compares two candidates; the choices offered are the candidates of the right one's op.
    void compare(const QString &leftId, const QString &rightId);

    /// A page in a tab that is not shown reads nothing (at 30k kernels a read costs a click half a second): the
    /// latest request is kept and carried out when the page is shown.
    void setDeferredWhileHidden(bool deferred) { m_deferWhileHidden = deferred; }

    QString leftId() const { return m_leftId; }
    QString rightId() const { return m_rightId; }
    bool isLoading() const { return m_loading; }

    DiffPane *sourcePane() const { return m_sourcePane; }
    DiffPane *planPane() const { return m_planPane; }
    DiffPane *currentPane() const;
    QTabWidget *tabs() const { return m_tabs; }
    QAction *nextChangeAction() const { return m_nextAction; }
    QAction *previousChangeAction() const { return m_previousAction; }
    QString summaryText() const;

signals:
    /// A comparison finished loading (or failed: then message is not empty).
    void loaded(const QString &message);

protected:
    void showEvent(QShowEvent *event) override;

private:
    struct Loaded;
    struct Request
    {
        QString leftId, rightId;
        bool leftIsFirstParent = false;
    };
    void load(const QString &leftId, const QString &rightId, bool leftIsFirstParent);
    void showLoaded(const Loaded &result);
    void fillChoices(QComboBox *combo, const QString &selectedId);
    void selectChoice(QComboBox *combo, const QString &selectedId);
    void onChoiceChanged();
    void updateSummary();
    void showMessage(const QString &message);

    ArchiveRef m_archive;
    QString m_leftId;
    QString m_rightId;
    QString m_requestedRightId; // Of the latest request, loaded or not.
    LatestJob m_load;
    bool m_loading = false;
    bool m_deferWhileHidden = false;
    std::optional<Request> m_deferred; // Asked for while hidden.
    bool m_updatingChoices = false;
    std::vector<CandidateSummary> m_choices;
    std::string m_choicesOp; // The op m_choices belong to (empty: none read).
    QComboBox *m_leftCombo;
    QComboBox *m_rightCombo;
    QLabel *m_summary;
    QTabWidget *m_tabs;
    DiffPane *m_sourcePane;
    DiffPane *m_planPane;
    QAction *m_nextAction;
    QAction *m_previousAction;
};

} // namespace kx::ui
