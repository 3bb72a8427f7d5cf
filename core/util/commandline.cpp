#include "core/util/commandline.h"

#include <wordexp.h>

namespace kx {

Expected<std::vector<std::string>> splitCommandLine(const std::string &text)
{
    wordexp_t words{};
    const int result = wordexp(text.c_str(), &words, WRDE_NOCMD | WRDE_UNDEF);
    std::vector<std::string> parts;
    if (result == 0) {
        for (std::size_t i = 0; i < words.we_wordc; ++i)
            parts.emplace_back(words.we_wordv[i]);
        wordfree(&words);
    } else if (result == WRDE_NOSPACE) {
        wordfree(&words); // the one error after which wordexp may have allocated
    }
    switch (result) {
    case 0: break;
    case WRDE_BADCHAR: return Error{"the command has an unquoted | & ; < > ( ) { } or newline: quote it"};
    case WRDE_BADVAL: return Error{"the command uses an environment variable that is not set"};
    case WRDE_CMDSUB: return Error{"the command asks for command substitution ($(...) or `...`), which is not run"};
    case WRDE_SYNTAX: return Error{"the command's quotes or brackets do not match"};
    default: return Error{"the command could not be split into words"};
    }
    if (parts.empty())
        return Error{"the command is empty"};
    return parts;
}

} // namespace kx
