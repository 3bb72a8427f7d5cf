#include "core/util/childenvironment.h"

#include <algorithm>
#include <cctype>
#include <mutex>
#include <set>

extern char **environ;

namespace kx {
namespace {

std::mutex &markedMutex()
{
    static std::mutex mutex;
    return mutex;
}

std::set<std::string> &marked()
{
    static std::set<std::string> names;
    return names;
}

std::string upper(std::string text)
{
    std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return char(std::toupper(c)); });
    return text;
}

} // namespace

void markSecretVariable(const std::string &name)
{
    if (name.empty())
        return;
    std::lock_guard lock(markedMutex());
    marked().insert(name);
}

bool isSecretVariable(const std::string &name)
{
    {
        std::lock_guard lock(markedMutex());
        if (marked().contains(name))
            return true;
    }
    const std::string upperName = upper(name);
    for (const char *part : {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"})
        if (upperName.find(part) != std::string::npos)
            return true;
    return false;
}

ChildEnvironment::ChildEnvironment(const std::vector<std::string> &keep)
{
    for (char **entry = environ; entry && *entry; ++entry) {
        const std::string variable = *entry;
        const std::string name = variable.substr(0, variable.find('='));
        if (!isSecretVariable(name) || std::find(keep.begin(), keep.end(), name) != keep.end())
            m_variables.push_back(variable);
    }
    for (std::string &variable : m_variables)
        m_pointers.push_back(variable.data());
    m_pointers.push_back(nullptr);
}

} // namespace kx
