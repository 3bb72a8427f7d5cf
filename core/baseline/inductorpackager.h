#pragma once

#include "core/domain/op.h"
#include "core/eval/evalrequest.h"
#include "core/util/expected.h"

#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>

namespace kx {

/// An AOTInductor package of an op for one GPU architecture, kept in the package cache.
struct InductorPackage
{
    std::string path; ///< The .pt2 file.
    std::string sha256;
    std::string arch; ///< e.g. "sm_90".
    std::string torchVersion;
    std::string shapes; ///< The shape set it was built for, e.g. "N=4096, D=1024".
    double exportSeconds = 0;
    double compileSeconds = 0;
    bool fromCache = false;
};

/// What the Inductor baseline of an op needs, ready for the workers (see InductorBaselineSettings).
struct InductorPreparation
{
    InductorBaselineSettings settings;
    std::optional<InductorPackage> package; ///< Set when a package was built or found.
    /// The build ran out of GPU memory (beside other work on the GPU): not remembered, worth trying again alone.
    bool outOfMemory = false;
};

/**
 * Gets an op ready for its Inductor baseline before its first evaluation: builds an AOTInductor package with the
 * Python helper (torch.export, then torch._inductor.aoti_compile_and_package) on a GPU of the architecture it is
 * for, keyed by op definition, architecture, PyTorch version and shapes in a cache folder, so that later runs and
 * other workers reuse it. The workers time the package in a child process (`kx baseline-runner`). Where no package
 * can be built (the op does not export, PyTorch too old) the workers time torch.compile in the Python helper
 * instead; where there is no Python with PyTorch at all the settings say why there is no Inductor baseline. The
 * helper runs the op's Python: both the build and the timing in Python run it in a bubblewrap sandbox (see Options).
 * Never fails: a search goes on with eager alone. Blocking (seconds to minutes on a first build).
 */
class InductorPackager
{
public:
    struct Options
    {
        std::string cacheDir;               ///< Empty: defaultCacheDir().
        std::string python;                 ///< Empty: findPythonWithTorch()'s choice.
        std::chrono::seconds timeout{1200}; ///< For one package build.
        /// The op's module is Python that runs (an imported problem file's code): in a bubblewrap sandbox, with
        /// the GPU and the cache folder as all it may touch. Without bubblewrap there is no Inductor baseline
        /// unless this is false (--no-sandbox).
        bool sandbox = true;
    };

    InductorPackager();
    explicit InductorPackager(Options options);

    /**
     * runner: the program and leading arguments that time a package (e.g. {"/usr/bin/kx", "baseline-runner"});
     * empty when the workers cannot run one (packages are then not built). device: a GPU of that arch to build on.
     */
    InductorPreparation prepare(const Op &op, const std::string &arch, int device,
                                const std::vector<std::string> &runner, std::stop_token stop = {}) const;

    /// $XDG_CACHE_HOME/kernel-explorer/inductor (or ~/.cache/...); the packages and Inductor's own cache.
    static std::string defaultCacheDir();
    /// The helper script kx_inductor_baseline.py ($KX_INDUCTOR_HELPER overrides).
    static Expected<std::string> locateHelper();

private:
    Options m_options;
};

} // namespace kx
