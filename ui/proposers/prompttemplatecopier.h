#pragma once

#include <QCoreApplication>
#include <QString>

namespace kx::ui {

/// Copies the installed prompt templates into a folder of the user's, where they can be edited.
class PromptTemplateCopier
{
    Q_DECLARE_TR_FUNCTIONS(kx::ui::PromptTemplateCopier)

public:
    struct Result
    {
        int copied = 0;
        int kept = 0;  ///< Files already there: the user's edits win over the installed text.
        QString error; ///< Empty on success.
    };

    /// Blocking (file copies): call it off the GUI thread.
    static Result copyTo(const QString &folder);
};

} // namespace kx::ui
