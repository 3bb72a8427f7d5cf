#include "core/eval/workerplacement.h"

#include <charconv>

namespace kx {

Expected<SshHost> parseSshHost(const std::string &text)
{
    SshHost host;
    const auto colon = text.rfind(':');
    host.host = text.substr(0, colon);
    if (host.host.empty() || host.host.find_first_of(" \t'\"\\") != std::string::npos || host.host.front() == '-')
        return Error{"'" + text + "' is not a host (expected HOST or HOST:DEVICES, e.g. gpu-box:0,1)"};
    if (colon == std::string::npos)
        return host;
    host.devices.clear();
    const std::string list = text.substr(colon + 1);
    std::size_t start = 0;
    while (start <= list.size()) {
        const auto comma = std::min(list.find(',', start), list.size());
        int device = -1;
        const char *first = list.data() + start;
        const char *last = list.data() + comma;
        const auto [end, error] = std::from_chars(first, last, device);
        if (first == last || error != std::errc() || end != last || device < 0)
            return Error{"'" + text + "': the devices after ':' are CUDA ordinals separated by commas, e.g. 0,1"};
        host.devices.push_back(device);
        start = comma + 1;
    }
    return host;
}

std::string shellQuoted(const std::string &word)
{
    std::string quoted = "'";
    for (const char c : word)
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return quoted + "'";
}

WorkerPlacement WorkerPlacement::local(std::vector<std::string> workerCommand)
{
    WorkerPlacement placement;
    placement.m_worker = std::move(workerCommand);
    return placement;
}

WorkerPlacement WorkerPlacement::ssh(std::vector<std::string> ssh, std::vector<SshHost> hosts,
                                     std::vector<std::string> remoteWorker)
{
    WorkerPlacement placement;
    placement.m_kind = Kind::Ssh;
    placement.m_wrapper = std::move(ssh);
    placement.m_hosts = std::move(hosts);
    placement.m_worker = std::move(remoteWorker);
    return placement;
}

WorkerPlacement WorkerPlacement::slurm(std::vector<std::string> srun, SlurmRequest request,
                                       std::vector<std::string> worker)
{
    WorkerPlacement placement;
    placement.m_kind = Kind::Slurm;
    placement.m_wrapper = std::move(srun);
    placement.m_slurm = std::move(request);
    placement.m_worker = std::move(worker);
    return placement;
}

int WorkerPlacement::workerCount() const
{
    switch (m_kind) {
    case Kind::Local: return 0;
    case Kind::Ssh: {
        int count = 0;
        for (const auto &host : m_hosts)
            count += int(host.devices.size());
        return count;
    }
    case Kind::Slurm: return m_slurm.workers;
    }
    return 0;
}

std::vector<std::string> WorkerPlacement::commandFor(int device) const
{
    std::vector<std::string> argv;
    switch (m_kind) {
    case Kind::Local:
        argv = m_worker;
        argv.insert(argv.end(), {"--device", std::to_string(device)});
        break;
    case Kind::Ssh: {
        int index = device;
        for (const auto &host : m_hosts) {
            if (index >= int(host.devices.size())) {
                index -= int(host.devices.size());
                continue;
            }
            // BatchMode: a password prompt would wait forever; -T: no terminal, the protocol is plain lines.
            argv = m_wrapper;
            argv.insert(argv.end(), {"-o", "BatchMode=yes", "-T", host.host, "--"});
            std::string remote;
            for (const auto &word : m_worker)
                remote += shellQuoted(word) + " ";
            argv.push_back(remote + "'--device' '" + std::to_string(host.devices[index]) + "'");
            break;
        }
        break;
    }
    case Kind::Slurm:
        // One task, its output unbuffered (the protocol is line by line); the job's name lets people find it.
        argv = m_wrapper;
        argv.insert(argv.end(), {"--ntasks=1", "--unbuffered", "--quiet", "--job-name=kx-worker"});
        if (m_slurm.gpusPerWorker > 0)
            argv.push_back("--gres=gpu:" + std::to_string(m_slurm.gpusPerWorker));
        if (!m_slurm.partition.empty())
            argv.push_back("--partition=" + m_slurm.partition);
        if (!m_slurm.account.empty())
            argv.push_back("--account=" + m_slurm.account);
        if (!m_slurm.timeLimit.empty())
            argv.push_back("--time=" + m_slurm.timeLimit);
        argv.insert(argv.end(), m_worker.begin(), m_worker.end());
        argv.insert(argv.end(), {"--device", "0"});
        break;
    }
    return argv;
}

std::string WorkerPlacement::describe(int device) const
{
    switch (m_kind) {
    case Kind::Local: return "device " + std::to_string(device);
    case Kind::Ssh: {
        int index = device;
        for (const auto &host : m_hosts) {
            if (index < int(host.devices.size()))
                return host.host + ", device " + std::to_string(host.devices[index]);
            index -= int(host.devices.size());
        }
        return "no host for worker " + std::to_string(device);
    }
    case Kind::Slurm: return "Slurm job step " + std::to_string(device);
    }
    return {};
}

} // namespace kx
