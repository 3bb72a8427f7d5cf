#pragma once

// Files under tests/data/propose: model answers, prompts and scripts the proposer suites read.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kx::test {

inline std::string readDataFile(const std::string &name)
{
    std::ifstream file(std::string(KX_TEST_DATA_DIR) + "/propose/" + name, std::ios::binary);
    if (!file)
        throw std::runtime_error("missing test data file " + name);
    std::ostringstream text;
    text << file.rdbuf();
    return text.str();
}

} // namespace kx::test
