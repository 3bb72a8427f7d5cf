#pragma once

#include "core/domain/candidate.h"

#include <QWidget>

#include <optional>

class QLabel;

namespace kx::ui {

class CodeView;

/// Who made a candidate: proposer, model or command, tokens and estimated cost, and the prompt and the raw
/// response side by side in read-only code views.
class ProvenanceView : public QWidget
{
    Q_OBJECT

public:
    explicit ProvenanceView(QWidget *parent = nullptr);

    void setProvenance(const std::optional<CandidateProvenance> &provenance);
    void clear() { setProvenance(std::nullopt); }

    /// Whether provenance is worth a tab: a model or command made the candidate (not the template proposer,
    /// which also leaves a record when it stands in for a failed model).
    static bool isExternal(const std::optional<CandidateProvenance> &provenance);

    QLabel *summary() const { return m_summary; }
    CodeView *promptView() const { return m_prompt; }
    CodeView *responseView() const { return m_response; }

private:
    QLabel *m_summary;
    CodeView *m_prompt;
    CodeView *m_response;
};

} // namespace kx::ui
