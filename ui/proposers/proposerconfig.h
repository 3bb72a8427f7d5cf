#pragma once

#include "core/propose/proposersettings.h"

#include <QCoreApplication>
#include <QString>

class QSettings;

namespace kx::ui {

/**
 * The proposer the GUI searches with: core's settings plus where the API key comes from. Persisted in
 * QSettings field by field; the key itself (LlmSettings::apiKey) is never written, it is read from the
 * system keychain when a run starts.
 */
struct ProposerConfig
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::ProposerConfig)

public:
    enum class KeySource { Environment, Keychain };

    ProposerSettings settings;
    KeySource keySource = KeySource::Environment;

    static ProposerConfig load(const QSettings &store);
    void save(QSettings &store) const;

    /// Whether the run asks the language model (llm, or mix with a model), as makeProposer decides.
    bool usesModel() const;
    /// Whether the run asks the command (command, or mix without a model but with a command).
    bool usesCommand() const;
    /// Whether starting a run has to read the API key from the keychain first.
    bool needsKeychainKey() const { return usesModel() && keySource == KeySource::Keychain; }

    /// One line for the run panel, e.g. "mix: 70% template, 30% gpt-4o".
    QString summary() const;
    /// Where the key comes from, e.g. "API key from $OPENAI_API_KEY" (empty when no model is asked).
    QString keyDescription() const;

    /// The keychain entry that holds the API key (service: the application).
    static QString keychainEntry();

    bool operator==(const ProposerConfig &) const = default;
};

} // namespace kx::ui
