#include "core/plan/ptxasreport.h"

#include <algorithm>
#include <regex>
#include <sstream>

namespace kx {
namespace {

// The number before a unit in a line such as "Used 26 registers, used 1 barriers, 1024 bytes smem".
bool numberBefore(const std::string &line, const std::regex &pattern, int &value)
{
    std::smatch match;
    if (!std::regex_search(line, match, pattern))
        return false;
    value = std::stoi(match[1].str());
    return true;
}

} // namespace

std::vector<PtxasFunction> parsePtxasReport(const std::string &log)
{
    static const std::regex entryPattern(R"(Compiling entry function '([^']+)')");
    static const std::regex propertiesPattern(R"(Function properties for (\S+))");
    static const std::regex registersPattern(R"(Used (\d+) registers)");
    static const std::regex stackPattern(R"((\d+) bytes stack frame)");
    static const std::regex cumulativePattern(R"((\d+) bytes cumulative stack size)");
    static const std::regex spillStorePattern(R"((\d+) bytes spill stores)");
    static const std::regex spillLoadPattern(R"((\d+) bytes spill loads)");
    static const std::regex sharedPattern(R"((\d+) bytes smem)");

    std::vector<PtxasFunction> functions;
    auto find = [&functions](const std::string &name) -> PtxasFunction & {
        auto it = std::find_if(functions.begin(), functions.end(), [&](const auto &f) { return f.name == name; });
        if (it != functions.end())
            return *it;
        functions.push_back({});
        functions.back().name = name;
        return functions.back();
    };

    // Property lines follow "Function properties for X"; "Used ..." lines follow the entry being compiled.
    std::string currentFunction;
    std::string currentEntry;
    std::istringstream lines(log);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.find("ptxas") == std::string::npos)
            continue;
        std::smatch match;
        if (std::regex_search(line, match, entryPattern)) {
            currentEntry = match[1].str();
            find(currentEntry).entry = true;
            continue;
        }
        if (std::regex_search(line, match, propertiesPattern)) {
            currentFunction = match[1].str();
            find(currentFunction);
            continue;
        }
        if (!currentFunction.empty() && line.find("stack frame") != std::string::npos) {
            PtxasFunction &function = find(currentFunction);
            numberBefore(line, stackPattern, function.stackFrameBytes);
            numberBefore(line, spillStorePattern, function.spillStoreBytes);
            numberBefore(line, spillLoadPattern, function.spillLoadBytes);
            continue;
        }
        if (!currentEntry.empty() && line.find("Used ") != std::string::npos) {
            PtxasFunction &function = find(currentEntry);
            numberBefore(line, registersPattern, function.registers);
            numberBefore(line, cumulativePattern, function.cumulativeStackBytes);
            numberBefore(line, sharedPattern, function.sharedBytes);
        }
    }
    return functions;
}

void applyPtxasReport(const std::vector<PtxasFunction> &functions, CompileStats &stats)
{
    for (const PtxasFunction &function : functions) {
        stats.registers = std::max(stats.registers, function.registers);
        // Spill stores only exceed the frame in malformed reports; taking the maximum keeps them visible.
        const int local = std::max({function.stackFrameBytes, function.cumulativeStackBytes, function.spillStoreBytes});
        stats.spillBytes = std::max(stats.spillBytes, local);
        stats.staticSharedBytes = std::max(stats.staticSharedBytes, function.sharedBytes);
    }
}

} // namespace kx
