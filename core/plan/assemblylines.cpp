#include "core/plan/assemblylines.h"

#include <algorithm>
#include <map>
#include <regex>
#include <sstream>

namespace kx {
namespace {

// Whether a file name in the line information is the candidate's own source (NVRTC may give a path).
bool isSource(const std::string &name, const std::string &sourceName)
{
    return name == sourceName
           || (name.size() > sourceName.size()
               && name.compare(name.size() - sourceName.size(), sourceName.size(), sourceName) == 0
               && name[name.size() - sourceName.size() - 1] == '/');
}

} // namespace

bool AssemblyLineMap::empty() const
{
    return std::none_of(sourceLine.begin(), sourceLine.end(), [](int line) { return line > 0; });
}

std::vector<int> AssemblyLineMap::assemblyLinesOf(int line) const
{
    std::vector<int> lines;
    for (std::size_t i = 0; i < sourceLine.size(); ++i)
        if (line > 0 && sourceLine[i] == line)
            lines.push_back(int(i));
    return lines;
}

int AssemblyLineMap::sourceLineOf(int index) const
{
    return index >= 0 && std::size_t(index) < sourceLine.size() ? sourceLine[std::size_t(index)] : 0;
}

AssemblyLineMap mapPtxLines(const std::string &ptx, const std::string &sourceName)
{
    static const std::regex fileDirective(R"re(^\s*\.file\s+(\d+)\s+"([^"]*)")re");
    static const std::regex locDirective(R"re(^\s*\.loc\s+(\d+)\s+(\d+))re");
    // NVRTC writes the .file table after the functions: read it first.
    std::map<int, bool> ours; // file number -> is the candidate's source
    {
        std::istringstream in(ptx);
        std::string text;
        std::smatch match;
        while (std::getline(in, text))
            if (std::regex_search(text, match, fileDirective))
                ours[std::stoi(match[1])] = isSource(match[2], sourceName);
    }
    AssemblyLineMap map;
    std::istringstream in(ptx);
    std::string text;
    int current = 0;
    while (std::getline(in, text)) {
        std::smatch match;
        if (std::regex_search(text, match, locDirective)) {
            const auto file = ours.find(std::stoi(match[1]));
            current = file != ours.end() && file->second ? std::stoi(match[2]) : 0;
            map.sourceLine.push_back(0);
            continue;
        }
        const auto first = text.find_first_not_of(" \t");
        if (first == std::string::npos || text.compare(first, 2, "//") == 0) {
            map.sourceLine.push_back(0);
            continue;
        }
        if (text[first] == '}') { // the end of a function
            map.sourceLine.push_back(0);
            current = 0;
            continue;
        }
        // Labels and declarations belong to no line; instructions to the current one.
        const bool label = text.find(':') != std::string::npos && text.find(';') == std::string::npos;
        const bool declaration = text[first] == '.' || text[first] == '{';
        map.sourceLine.push_back(label || declaration ? 0 : current);
    }
    return map;
}

AssemblyLineMap mapSassLines(const std::string &sass, const std::string &sourceName)
{
    static const std::regex fileLine(R"re(//##\s*File\s+"([^"]*)",\s*line\s+(\d+))re");
    AssemblyLineMap map;
    std::istringstream in(sass);
    std::string text;
    int current = 0;
    while (std::getline(in, text)) {
        std::smatch match;
        if (std::regex_search(text, match, fileLine)) {
            current = isSource(match[1], sourceName) ? std::stoi(match[2]) : 0;
            map.sourceLine.push_back(0);
            continue;
        }
        const auto first = text.find_first_not_of(" \t");
        // Instructions: "/*0010*/  IMAD ..." lines; headers, labels and blank lines belong to no line.
        const bool instruction = first != std::string::npos && text.compare(first, 2, "/*") == 0;
        if (first != std::string::npos && (text[first] == '.' || text.compare(first, 8, "Function") == 0))
            current = 0;
        map.sourceLine.push_back(instruction ? current : 0);
    }
    return map;
}

} // namespace kx
