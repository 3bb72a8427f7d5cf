// kx: the command line of Kernel Explorer. Parsing only; the commands live in *commands.cpp.
#include "commands.h"

#include "core/version.h"

#include <iostream>

int main(int argc, char **argv)
{
    CLI::App app{"kx: turn PyTorch ops into fast, verified CUDA kernels", "kx"};
    app.set_version_flag("--version", std::string("kx ") + kx::kVersion);
    app.require_subcommand(1);
    app.fallthrough(false);
    app.footer(kx::cli::exitCodesHelp());

    kx::cli::Action action;
    kx::cli::addArchiveCommands(app, action);
    kx::cli::addOpCommands(app, action);
    kx::cli::addSearchCommands(app, action);
    kx::cli::addResultCommands(app, action);
    kx::cli::addCompileCommand(app, action);
    kx::cli::addWorkerCommand(app, action);
    kx::cli::addKernelBenchCommands(app, action);
    kx::cli::addProfileCommands(app, action);
    kx::cli::addVerdictCommand(app, action);
    kx::cli::addExportCommand(app, action);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError &error) {
        const int code = app.exit(error);
        return code == 0 ? kx::cli::Ok : kx::cli::Usage;
    }
    try {
        return action ? action() : kx::cli::Usage;
    } catch (const std::exception &error) {
        std::cerr << "kx: " << error.what() << '\n';
        return kx::cli::Failure;
    }
}
