#pragma once

#include "core/util/expected.h"

#include <string>
#include <vector>

namespace kx {

/// A host reached by SSH and the CUDA devices of it that get a worker each ("gpu-box:0,1").
struct SshHost
{
    std::string host; ///< As ssh takes it: "gpu-box", "user@gpu-box".
    std::vector<int> devices{0};
};

/// "gpu-box", "gpu-box:0,1", "user@gpu-box:2"; an error says what is wrong.
Expected<SshHost> parseSshHost(const std::string &text);

/// What a worker's Slurm job asks for.
struct SlurmRequest
{
    int workers = 1;       ///< Job steps, one worker each.
    int gpusPerWorker = 1; ///< --gres=gpu:N (0: no GPU request, for clusters without GRES).
    std::string partition; ///< -p (empty: the cluster's default).
    std::string account;   ///< -A
    std::string timeLimit; ///< -t, e.g. "2:00:00"
};

/**
 * Where a search's GPU workers run and the command that starts each, for the worker pool's device numbers
 * 0, 1, ... (logical: on SSH hosts and in Slurm jobs each worker sees its own CUDA devices):
 * - local: the worker command with --device N, one per local GPU;
 * - SSH: `ssh -o BatchMode=yes -T HOST -- 'kx' 'worker' '--device' 'D'`, one per listed device of each host;
 * - Slurm: `srun --ntasks=1 --gres=gpu:1 ... kx worker --device 0`, one job step per worker (Slurm's
 *   CUDA_VISIBLE_DEVICES gives each its GPU as device 0).
 * The worker protocol runs over the wrapper's stdin and stdout; the end of stdin ends the worker, so a search
 * that stops or crashes leaves no job or remote worker behind.
 */
class WorkerPlacement
{
public:
    enum class Kind { Local, Ssh, Slurm };

    static WorkerPlacement local(std::vector<std::string> workerCommand);
    /// @p ssh: the ssh program and its options ({"ssh"} or {"ssh", "-p", "2222"}); @p remoteWorker: the worker
    /// command on the hosts ({"kx", "worker"}).
    static WorkerPlacement ssh(std::vector<std::string> ssh, std::vector<SshHost> hosts,
                               std::vector<std::string> remoteWorker);
    /// @p srun: the srun program and its options ({"srun"}); @p worker: the worker command on the nodes.
    static WorkerPlacement slurm(std::vector<std::string> srun, SlurmRequest request, std::vector<std::string> worker);

    Kind kind() const { return m_kind; }
    /// Workers it starts; 0 for local placement, where the devices chosen decide.
    int workerCount() const;
    /// The full command of worker @p device.
    std::vector<std::string> commandFor(int device) const;
    /// "gpu-box, device 1", "Slurm job step 2": for messages.
    std::string describe(int device) const;

private:
    Kind m_kind = Kind::Local;
    std::vector<std::string> m_wrapper; // ssh or srun with their options
    std::vector<std::string> m_worker;
    std::vector<SshHost> m_hosts;
    SlurmRequest m_slurm;
};

/// The word quoted for a POSIX shell ('it'\''s'): ssh hands the remote command to the host's shell.
std::string shellQuoted(const std::string &word);

} // namespace kx
