#include "referencemodules.h"

#include "core/util/removetree.h"

#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <vector>

#include <unistd.h>

namespace kx::test {
namespace {

std::string quoted(const std::string &text)
{
    std::string result = "'";
    for (const char c : text)
        result += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return result + "'";
}

std::string pythonWithTorch()
{
    std::vector<std::string> candidates;
    if (const char *configured = std::getenv("KX_PYTHON"); configured && *configured)
        candidates.emplace_back(configured);
    candidates.emplace_back("python3");
    candidates.emplace_back("/usr/bin/python3");
    for (const auto &python : candidates) {
        if (std::system((quoted(python) + " -c 'import torch' >/dev/null 2>&1").c_str()) == 0)
            return python;
    }
    return {};
}

std::map<std::string, std::string> makeModules()
{
    const auto python = pythonWithTorch();
    if (python.empty()) {
        std::cout << "no Python with PyTorch (install python3-torch, or set KX_PYTHON): skipped\n";
        std::exit(77);
    }
    const auto directory =
        std::filesystem::temp_directory_path() / ("kx-reference-modules-" + std::to_string(::getpid()));
    const std::string script = KX_TEST_DATA_DIR "/torchscript/make_reference_modules.py";
    const int exitCode = std::system((quoted(python) + " " + quoted(script) + " " + quoted(directory.string())).c_str());
    std::map<std::string, std::string> modules;
    if (exitCode == 0) {
        for (const auto &entry : std::filesystem::directory_iterator(directory)) {
            if (entry.path().extension() != ".b64")
                continue;
            std::ifstream file(entry.path());
            std::ostringstream text;
            text << file.rdbuf();
            modules[entry.path().stem().string()] = text.str();
        }
    }
    removeTree(directory.string());
    if (exitCode != 0 || modules.empty()) {
        std::cerr << script << " failed with " << python << " (status " << exitCode << ")\n";
        std::exit(1);
    }
    return modules;
}

} // namespace

const std::map<std::string, std::string> &referenceModules()
{
    static const auto modules = makeModules();
    return modules;
}

const std::string &referenceModule(const std::string &name)
{
    const auto &modules = referenceModules();
    const auto it = modules.find(name);
    REQUIRE_MESSAGE(it != modules.end(), "no reference module '", name, "'");
    return it->second;
}

} // namespace kx::test
