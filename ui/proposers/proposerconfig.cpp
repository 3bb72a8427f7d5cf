#include "ui/proposers/proposerconfig.h"

#include <QSettings>

#include <algorithm>
#include <cmath>

namespace kx::ui {

namespace {

// Keys under the "proposer" group. There is deliberately no key for the API key.
const char kKind[] = "proposer/kind";
const char kEndpoint[] = "proposer/llm/endpoint";
const char kModel[] = "proposer/llm/model";
const char kKeySource[] = "proposer/llm/keySource";
const char kKeyEnv[] = "proposer/llm/apiKeyEnv";
const char kTemperature[] = "proposer/llm/temperature";
const char kMaxTokens[] = "proposer/llm/maxTokens";
const char kTimeout[] = "proposer/llm/timeoutSeconds";
const char kRetries[] = "proposer/llm/maxRetries";
const char kConcurrency[] = "proposer/llm/concurrency";
const char kPricePrompt[] = "proposer/llm/pricePromptPerMillion";
const char kPriceCompletion[] = "proposer/llm/priceCompletionPerMillion";
const char kCommand[] = "proposer/command/command";
const char kCommandTimeout[] = "proposer/command/timeoutSeconds";
const char kLlmShare[] = "proposer/llmShare";
const char kPromptsDir[] = "proposer/promptsDir";

const char kKeychain[] = "keychain";
const char kEnvironment[] = "environment";

std::string text(const QSettings &store, const char *key, const std::string &fallback)
{
    return store.value(QLatin1String(key), QString::fromStdString(fallback)).toString().toStdString();
}

double number(const QSettings &store, const char *key, double fallback)
{
    bool ok = false;
    const double value = store.value(QLatin1String(key), fallback).toDouble(&ok);
    return ok && std::isfinite(value) ? value : fallback;
}

int integer(const QSettings &store, const char *key, int fallback)
{
    bool ok = false;
    const int value = store.value(QLatin1String(key), fallback).toInt(&ok);
    return ok ? value : fallback;
}

int percent(double share)
{
    return int(std::lround(std::clamp(share, 0.0, 1.0) * 100));
}

} // namespace

ProposerConfig ProposerConfig::load(const QSettings &store)
{
    ProposerConfig config;
    ProposerSettings &s = config.settings;
    // A word this version does not know (a newer one wrote it, or a hand edit) falls back to the templates.
    s.kind = proposerKindFromString(text(store, kKind, toString(s.kind))).value_or(ProposerKind::Template);
    s.llm.endpoint = text(store, kEndpoint, s.llm.endpoint);
    s.llm.model = text(store, kModel, s.llm.model);
    s.llm.apiKeyEnv = text(store, kKeyEnv, s.llm.apiKeyEnv);
    s.llm.temperature = number(store, kTemperature, s.llm.temperature);
    s.llm.maxTokens = integer(store, kMaxTokens, s.llm.maxTokens);
    s.llm.timeoutSeconds = number(store, kTimeout, s.llm.timeoutSeconds);
    s.llm.maxRetries = integer(store, kRetries, s.llm.maxRetries);
    s.llm.concurrency = integer(store, kConcurrency, s.llm.concurrency);
    s.llm.pricePromptPerMillion = number(store, kPricePrompt, s.llm.pricePromptPerMillion);
    s.llm.priceCompletionPerMillion = number(store, kPriceCompletion, s.llm.priceCompletionPerMillion);
    s.command.command = text(store, kCommand, s.command.command);
    s.command.timeoutSeconds = number(store, kCommandTimeout, s.command.timeoutSeconds);
    s.llmShare = number(store, kLlmShare, s.llmShare);
    s.promptsDir = text(store, kPromptsDir, s.promptsDir);
    config.keySource = store.value(QLatin1String(kKeySource)).toString() == QLatin1String(kKeychain)
                           ? KeySource::Keychain
                           : KeySource::Environment;
    return config;
}

void ProposerConfig::save(QSettings &store) const
{
    const ProposerSettings &s = settings;
    const auto put = [&store](const char *key, const QVariant &value) { store.setValue(QLatin1String(key), value); };
    put(kKind, QString::fromLatin1(toString(s.kind)));
    put(kEndpoint, QString::fromStdString(s.llm.endpoint));
    put(kModel, QString::fromStdString(s.llm.model));
    put(kKeySource, QString::fromLatin1(keySource == KeySource::Keychain ? kKeychain : kEnvironment));
    put(kKeyEnv, QString::fromStdString(s.llm.apiKeyEnv));
    put(kTemperature, s.llm.temperature);
    put(kMaxTokens, s.llm.maxTokens);
    put(kTimeout, s.llm.timeoutSeconds);
    put(kRetries, s.llm.maxRetries);
    put(kConcurrency, s.llm.concurrency);
    put(kPricePrompt, s.llm.pricePromptPerMillion);
    put(kPriceCompletion, s.llm.priceCompletionPerMillion);
    put(kCommand, QString::fromStdString(s.command.command));
    put(kCommandTimeout, s.command.timeoutSeconds);
    put(kLlmShare, s.llmShare);
    put(kPromptsDir, QString::fromStdString(s.promptsDir));
    // s.llm.apiKey is left out on purpose: settings files are plain text.
}

bool ProposerConfig::usesModel() const
{
    return asksModel(settings);
}

bool ProposerConfig::usesCommand() const
{
    return runsCommand(settings);
}

QString ProposerConfig::summary() const
{
    const QString model = QString::fromStdString(settings.llm.model);
    const QString command = QString::fromStdString(settings.command.command);
    switch (settings.kind) {
    case ProposerKind::Template: return tr("template");
    case ProposerKind::Llm: return tr("LLM %1").arg(model.isEmpty() ? tr("(no model)") : model);
    case ProposerKind::Command: return tr("command %1").arg(command.isEmpty() ? tr("(no command)") : command);
    case ProposerKind::Mix: {
        const int external = percent(settings.llmShare);
        const QString other = usesModel()          ? model
                              : !command.isEmpty() ? tr("command %1").arg(command)
                                                   : tr("(nothing)");
        return tr("mix: %1% template, %2% %3").arg(100 - external).arg(external).arg(other);
    }
    }
    return tr("template");
}

QString ProposerConfig::keyDescription() const
{
    if (!usesModel())
        return {};
    if (keySource == KeySource::Keychain)
        return tr("API key from the system keychain");
    if (settings.llm.apiKeyEnv.empty())
        return tr("no API key");
    return tr("API key from $%1").arg(QString::fromStdString(settings.llm.apiKeyEnv));
}

QString ProposerConfig::keychainEntry()
{
    return QStringLiteral("llm-api-key");
}

} // namespace kx::ui
