#include "core/util/jsonparse.h"

#include <string>

namespace kx {
namespace {

// nlohmann's messages start with "[json.exception.parse_error.101] ": an id for its own documentation.
std::string withoutExceptionId(const std::string &message)
{
    if (message.rfind("[json.exception.", 0) == 0)
        if (const auto end = message.find("] "); end != std::string::npos)
            return message.substr(end + 2);
    return message;
}

std::string position(std::string_view text, std::size_t offset)
{
    std::size_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

} // namespace

long long findTooDeepJson(std::string_view text, int maxDepth)
{
    int depth = 0;
    bool inString = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i; // the escaped character cannot end the string
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            if (++depth > maxDepth)
                return (long long)i;
        } else if ((c == ']' || c == '}') && depth > 0) {
            --depth;
        }
    }
    return -1;
}

Expected<nlohmann::json> parseJson(std::string_view text, int maxDepth)
{
    // Checked before parsing: code that walks a document recursively (comparisons, dumps, conversions) would
    // run out of stack on one nested tens of thousands of levels deep.
    if (const auto tooDeep = findTooDeepJson(text, maxDepth); tooDeep >= 0)
        return Error{position(text, std::size_t(tooDeep)) + ": arrays and objects nest deeper than "
                     + std::to_string(maxDepth) + " levels"};
    try {
        return nlohmann::json::parse(text);
    } catch (const nlohmann::json::parse_error &error) {
        std::string message = withoutExceptionId(error.what());
        if (message.rfind("parse error at ", 0) == 0)
            message = message.substr(15);
        return Error{message};
    } catch (const nlohmann::json::exception &error) {
        // out_of_range.406: a number too large for a double (1e400).
        return Error{withoutExceptionId(error.what())};
    }
}

} // namespace kx
