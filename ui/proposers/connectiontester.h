#pragma once

#include "ui/common/latestjob.h"

#include "core/propose/proposersettings.h"

#include <QObject>
#include <QString>

#include <memory>
#include <stop_token>

namespace kx::ui {

/**
 * Tests a chat-completions endpoint with one short request off the GUI thread: whether it answers, which
 * model answers and what the request cost in tokens. No retries, so that a failure shows at once. A newer
 * test, cancel() and the tester's destruction abort the request in flight; its result is then dropped.
 */
class ConnectionTester : public QObject
{
    Q_OBJECT

public:
    explicit ConnectionTester(QObject *parent = nullptr);
    ~ConnectionTester() override;

    /// Asks settings' endpoint and model (with its key, if it carries one) for a one-word answer.
    void start(const LlmSettings &settings);
    void cancel();
    bool isRunning() const { return m_stop != nullptr; }

signals:
    /// message is for people: the answering model and tokens, or what went wrong.
    void finished(bool ok, const QString &message);

private:
    std::shared_ptr<std::stop_source> m_stop; // Of the request in flight; null when none is.
    LatestJob m_test;
};

} // namespace kx::ui
