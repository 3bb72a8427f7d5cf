#include "ui/proposers/secretstore.h"

namespace kx::ui {

QString SecretStore::describe(const SecretResult &result)
{
    const QString detail = result.message.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(result.message);
    switch (result.status) {
    case SecretResult::Status::Ok: return {};
    case SecretResult::Status::NotFound:
        return tr("No API key is saved in the system keychain: save one in the proposer settings, or use an "
                  "environment variable.");
    case SecretResult::Status::Unavailable:
        return tr("The system keychain is unavailable%1. An API key entered in the proposer settings is kept for "
                  "this session only; an environment variable works too.")
            .arg(detail);
    case SecretResult::Status::Failed: break;
    }
    return tr("The system keychain failed%1: use an environment variable for the API key.").arg(detail);
}

} // namespace kx::ui
