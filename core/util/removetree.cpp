#include "core/util/removetree.h"

#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>

namespace kx {
namespace {

int removeEntry(const char *path, const struct stat *, int, struct FTW *)
{
    return ::remove(path) == 0 ? 0 : -1;
}

} // namespace

bool removeTree(const std::string &path)
{
    struct stat info;
    if (::lstat(path.c_str(), &info) != 0)
        return true; // nothing there
    // Depth first, without following links: a link inside the folder is removed, not what it points to.
    return ::nftw(path.c_str(), removeEntry, 32, FTW_DEPTH | FTW_PHYS) == 0;
}

} // namespace kx
