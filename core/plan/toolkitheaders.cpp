#include "core/plan/toolkitheaders.h"

#include "core/plan/includecheck.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

namespace kx {
namespace {

namespace fs = std::filesystem;

// An #include of a toolkit header: the name as written, and whether it was quoted (then the including header's
// own folder is searched first, as a compiler does).
struct Include
{
    std::string name;
    bool quoted = false;
};

struct Entry
{
    InMemoryHeader header;
    fs::path path;
    std::vector<Include> includes;
};

struct Store
{
    std::mutex mutex;
    std::map<std::string, Entry> byName; // Never erased: the headers' addresses stay valid.
    std::map<std::string, std::vector<const InMemoryHeader *>> closures;
};

Store &store()
{
    static Store instance;
    return instance;
}

// CUDA 13 keeps libcu++ (cuda/std/..., cuda/barrier) in include/cccl; older toolkits in include itself.
std::vector<fs::path> roots()
{
    std::vector<fs::path> folders;
    const std::string dir = ToolkitHeaders::includeDir();
    if (dir.empty())
        return folders;
    std::error_code error;
    for (const fs::path &folder : {fs::path(dir), fs::path(dir) / "cccl"}) {
        const fs::path canonical = fs::canonical(folder, error);
        if (!error && fs::is_directory(canonical, error))
            folders.push_back(canonical);
    }
    return folders;
}

bool isInside(const fs::path &path, const fs::path &folder)
{
    const auto [end, ignored] = std::mismatch(folder.begin(), folder.end(), path.begin(), path.end());
    return end == folder.end();
}

// The file a header name stands for, never outside the toolkit's include folders.
std::optional<fs::path> resolve(const Include &include, const fs::path &includerDir, const std::vector<fs::path> &roots)
{
    std::vector<fs::path> candidates;
    if (include.quoted && !includerDir.empty())
        candidates.push_back(includerDir / include.name);
    for (const fs::path &root : roots)
        candidates.push_back(root / include.name);
    for (const fs::path &candidate : candidates) {
        std::error_code error;
        const fs::path canonical = fs::canonical(candidate, error);
        if (error || !fs::is_regular_file(canonical, error))
            continue;
        for (const fs::path &root : roots)
            if (isInside(canonical, root))
                return canonical;
    }
    return std::nullopt;
}

// The #include lines of a toolkit header, whatever #if they stand under: a header too many costs only memory.
std::vector<Include> includesOf(const std::string &text)
{
    std::vector<Include> includes;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        std::size_t i = line.find_first_not_of(" \t");
        if (i == std::string::npos || line[i] != '#')
            continue;
        i = line.find_first_not_of(" \t", i + 1);
        if (i == std::string::npos || line.compare(i, 7, "include") != 0)
            continue;
        i += 7;
        if (line.compare(i, 5, "_next") == 0)
            i += 5;
        i = line.find_first_not_of(" \t", i);
        if (i == std::string::npos || (line[i] != '"' && line[i] != '<'))
            continue;
        const auto close = line.find(line[i] == '"' ? '"' : '>', i + 1);
        if (close == std::string::npos)
            continue;
        includes.push_back({line.substr(i + 1, close - i - 1), line[i] == '"'});
    }
    return includes;
}

const Entry *load(Store &store, const Include &include, const fs::path &includerDir, const std::vector<fs::path> &roots)
{
    if (const auto known = store.byName.find(include.name); known != store.byName.end())
        return &known->second;
    const auto path = resolve(include, includerDir, roots);
    if (!path)
        return nullptr;
    std::ifstream file(*path, std::ios::binary);
    if (!file)
        return nullptr;
    std::ostringstream text;
    text << file.rdbuf();
    Entry entry{{include.name, text.str()}, *path, {}};
    entry.includes = includesOf(entry.header.text);
    return &store.byName.emplace(include.name, std::move(entry)).first->second;
}

// Called with the store locked.
Expected<std::vector<const InMemoryHeader *>> closureOf(Store &store, const std::string &header)
{
    if (const auto known = store.closures.find(header); known != store.closures.end())
        return known->second;
    const std::vector<fs::path> folders = roots();
    if (folders.empty())
        return Error{"#include <" + header + ">: this build knows no CUDA toolkit headers"};
    std::vector<const InMemoryHeader *> closure;
    std::set<std::string> seen;
    std::vector<std::pair<Include, fs::path>> pending{{{header, false}, {}}};
    while (!pending.empty()) {
        const auto [include, includerDir] = pending.back();
        pending.pop_back();
        if (!seen.insert(include.name).second)
            continue;
        const Entry *entry = load(store, include, includerDir, folders);
        if (!entry) {
            if (include.name == header)
                return Error{"#include <" + header + ">: the CUDA toolkit in " + ToolkitHeaders::includeDir()
                             + " has no such header"};
            continue; // Host-only or platform headers (stdlib.h, windows.h) that NVRTC's branches never include.
        }
        closure.push_back(&entry->header);
        for (const Include &nested : entry->includes)
            pending.emplace_back(nested, entry->path.parent_path());
    }
    store.closures.emplace(header, closure);
    return closure;
}

} // namespace

std::string ToolkitHeaders::includeDir()
{
#ifdef KX_CUDA_INCLUDE_DIR
    return KX_CUDA_INCLUDE_DIR;
#else
    return {};
#endif
}

Expected<std::vector<const InMemoryHeader *>> ToolkitHeaders::forIncludes(const std::vector<std::string> &includes)
{
    const auto &allowed = allowedCudaHeaders();
    Store &headers = store();
    std::lock_guard lock(headers.mutex);
    std::vector<const InMemoryHeader *> result;
    std::set<const InMemoryHeader *> added;
    for (const std::string &include : includes) {
        if (std::find(allowed.begin(), allowed.end(), include) == allowed.end())
            return Error{"#include <" + include + "> is not allowed; a candidate may include only these CUDA headers: "
                         + allowedCudaHeadersText()};
        const auto closure = closureOf(headers, include);
        if (!closure)
            return closure.error();
        for (const InMemoryHeader *header : *closure)
            if (added.insert(header).second)
                result.push_back(header);
    }
    return result;
}

} // namespace kx
