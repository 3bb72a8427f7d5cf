#include "core/plan/disassembler.h"

#include "core/util/childenvironment.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace kx {

namespace {

namespace fs = std::filesystem;

std::vector<fs::path> searchFolders()
{
    std::vector<fs::path> folders;
    if (const char *path = std::getenv("PATH")) {
        std::istringstream parts(path);
        std::string part;
        while (std::getline(parts, part, ':')) {
            if (!part.empty())
                folders.emplace_back(part);
        }
    }
#ifdef KX_CUDA_BIN_DIR
    folders.emplace_back(KX_CUDA_BIN_DIR);
#endif
    return folders;
}

// A temporary file that is removed again; empty path() when it could not be made.
class TemporaryFile
{
public:
    explicit TemporaryFile(const std::string &data)
    {
        std::error_code error;
        std::string pattern = (fs::temp_directory_path(error) / "kx-sass-XXXXXX").string();
        const int fd = ::mkstemp(pattern.data());
        if (fd < 0)
            return;
        ::close(fd);
        m_path = pattern;
        std::ofstream out(m_path, std::ios::binary | std::ios::trunc);
        out.write(data.data(), std::streamsize(data.size()));
        if (!out) {
            fs::remove(m_path, error);
            m_path.clear();
        }
    }
    ~TemporaryFile()
    {
        if (!m_path.empty()) {
            std::error_code error;
            fs::remove(m_path, error);
        }
    }
    TemporaryFile(const TemporaryFile &) = delete;
    TemporaryFile &operator=(const TemporaryFile &) = delete;
    const std::string &path() const { return m_path; }

private:
    std::string m_path;
};

} // namespace

std::string Disassembler::findTool()
{
    const std::vector<fs::path> folders = searchFolders();
    for (const char *tool : {"cuobjdump", "nvdisasm"}) {
        for (const fs::path &folder : folders) {
            const fs::path candidate = folder / tool;
            if (::access(candidate.c_str(), X_OK) == 0)
                return candidate.string();
        }
    }
    return {};
}

std::string Disassembler::searchedPlaces()
{
    std::string searched = "PATH";
#ifdef KX_CUDA_BIN_DIR
    searched += " and " + std::string(KX_CUDA_BIN_DIR);
#endif
    return searched;
}

Status Disassembler::sassToFile(const std::string &cubinPath, const std::string &outputPath)
{
    const std::string tool = findTool();
    if (tool.empty())
        return Error{"neither cuobjdump nor nvdisasm was found (searched " + searchedPlaces() + ")"};
    std::vector<std::string> arguments = {tool};
    if (fs::path(tool).filename() == "cuobjdump")
        arguments.push_back("-sass");
    else
        arguments.push_back("-g"); // nvdisasm: the source line of each instruction, where the cubin has line info
    arguments.push_back(cubinPath);
    std::vector<char *> argv;
    for (std::string &argument : arguments)
        argv.push_back(argument.data());
    argv.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outputPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    const ChildEnvironment environment;
    pid_t pid = 0;
    const int spawnError = posix_spawn(&pid, tool.c_str(), &actions, nullptr, argv.data(), environment.envp());
    posix_spawn_file_actions_destroy(&actions);
    if (spawnError != 0)
        return Error{"cannot start " + tool};
    int status = 0;
    if (::waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return Error{fs::path(tool).filename().string() + " failed"};
    return Status::ok();
}

Expected<std::string> Disassembler::sass(const std::string &cubin)
{
    if (cubin.empty())
        return Error{"there is no binary to disassemble"};
    TemporaryFile input(cubin);
    TemporaryFile output(std::string{});
    if (input.path().empty() || output.path().empty())
        return Error{"cannot write a temporary file"};
    if (Status status = sassToFile(input.path(), output.path()); !status)
        return status.error();
    std::ifstream in(output.path(), std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace kx
