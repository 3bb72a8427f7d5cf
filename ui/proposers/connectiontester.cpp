#include "ui/proposers/connectiontester.h"

#include "ui/common/format.h"

#include "core/propose/chatclient.h"
#include "core/propose/costledger.h"

#include <QElapsedTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

namespace kx::ui {

namespace {

struct Outcome
{
    bool ok = false;
    QString message;
};

// Runs on the thread pool.
Outcome ask(LlmSettings settings, std::stop_token stop)
{
    settings.maxRetries = 0;
    // Enough for "OK" from any model, little enough to cost next to nothing.
    settings.maxTokens = std::min(settings.maxTokens, 16);
    settings.temperature = 0;
    QElapsedTimer clock;
    clock.start();
    const auto reply = ChatClient(settings).complete(
        {{"system", "You are a connection test."}, {"user", "Reply with the single word OK."}}, stop);
    if (!reply)
        return {
            false,
            ConnectionTester::tr("The connection test failed: %1").arg(QString::fromStdString(reply.error().message))};
    const QString model =
        reply->model.empty() ? QString::fromStdString(settings.model) : QString::fromStdString(reply->model);
    const double cost = CostLedger(settings.pricePromptPerMillion, settings.priceCompletionPerMillion)
                            .cost(reply->promptTokens, reply->completionTokens);
    return {true, ConnectionTester::tr("Connected: %1 answered in %2 s (%3).")
                      .arg(model, Format::number(clock.elapsed() / 1000.0, 2),
                           Format::modelUsage(reply->promptTokens, reply->completionTokens, cost))};
}

} // namespace

ConnectionTester::ConnectionTester(QObject *parent)
    : QObject(parent)
{}

ConnectionTester::~ConnectionTester()
{
    cancel();
}

void ConnectionTester::start(const LlmSettings &settings)
{
    cancel();
    m_stop = std::make_shared<std::stop_source>();
    QtConcurrent::run([settings, stop = m_stop->get_token()] {
        return ask(settings, stop);
    }).then(this, m_test.guard([this](const Outcome &outcome) {
        m_stop.reset();
        emit finished(outcome.ok, outcome.message);
    }));
}

void ConnectionTester::cancel()
{
    m_test.invalidate();
    if (m_stop)
        m_stop->request_stop();
    m_stop.reset();
}

} // namespace kx::ui
