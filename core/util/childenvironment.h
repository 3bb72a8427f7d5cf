#pragma once

#include <string>
#include <vector>

namespace kx {

/// Marks an environment variable as a secret that child processes must not see, whatever its name: the one
/// LlmSettings::apiKeyEnv names. Thread-safe; a name stays marked for the life of the process.
void markSecretVariable(const std::string &name);

/// True for a variable child processes must not see: a marked one, or one whose name contains KEY, TOKEN,
/// SECRET, PASSWORD, PASSWD or CREDENTIAL (in any case).
bool isSecretVariable(const std::string &name);

/**
 * The environment for a child process this program starts: this process's environment without secret variables
 * (see isSecretVariable). Every place that starts a process uses it (GPU workers, the KernelBench import helper,
 * command proposers, the disassembler): they read input a model or a problem file wrote, and none of them needs
 * the API key. A child that does need a secret gets it by name through keep.
 */
class ChildEnvironment
{
public:
    explicit ChildEnvironment(const std::vector<std::string> &keep = {});
    ChildEnvironment(const ChildEnvironment &) = delete;
    ChildEnvironment &operator=(const ChildEnvironment &) = delete;

    /// "NAME=value" strings, NULL-terminated, for execve and posix_spawn; valid while this object lives.
    char *const *envp() const { return m_pointers.data(); }
    const std::vector<std::string> &variables() const { return m_variables; }

private:
    std::vector<std::string> m_variables;
    std::vector<char *> m_pointers;
};

} // namespace kx
