#pragma once

namespace kx::ui {

/// `kernel-explorer --self-test`: checks that the worker program, the prompt templates and the Python helpers
/// are found (printing where) and that the translation is compiled in; then builds a small archive in a temporary
/// folder, opens it in a main window and waits until its rows and the selected candidate's details arrive. Returns
/// the exit code (0 on success) after printing what failed. Uses temporary settings; the user's stay untouched.
int runSelfTest();

} // namespace kx::ui
