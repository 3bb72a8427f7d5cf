#!/usr/bin/env bash
# Workers in Slurm jobs, against a real single-node Slurm: munged, slurmctld and slurmd started here with a
# generated key and slurm.conf (ports of their own, two GPUs declared as GRES with stand-in device files).
# `kx search --slurm 2` starts the fake worker as two srun jobs of one GPU each; one job is cancelled
# mid-evaluation (scancel, as a preemption would). The search restarts it, runs that evaluation again and finishes; nothing is lost in the
# archive, and no job is left in the queue afterwards.
# Usage: tst_slurmworkers.sh KX FAKEWORKER    Exit 77 (skipped) without Slurm and MUNGE, or when not root
# (slurmd must be root to start jobs as the user).
set -euo pipefail
kx=${1:?usage: tst_slurmworkers.sh KX FAKEWORKER}
fake=$(realpath "${2:?fake worker}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for tool in /usr/sbin/slurmctld /usr/sbin/slurmd /usr/sbin/munged srun squeue sinfo python3; do
  command -v "$tool" > /dev/null || { echo "skipped: $tool not found (Debian: apt install slurmctld slurmd slurm-client munge python3)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: slurmd needs root to run jobs"; exit 77; }
dir=$(mktemp -d)
chmod 755 "$dir"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  [ -f "$dir/munged.pid" ] && kill "$(cat "$dir/munged.pid")" 2> /dev/null || true
  sleep 0.5
  rm -rf "$dir"
}
trap cleanup EXIT

node=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
chmod 700 "$dir/munge"
dd if=/dev/urandom of="$dir/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/munge/munge.key"
socket="$dir/munge/munge.socket"
/usr/sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" || { echo "FAIL: munged did not start"; cat "$dir/munged.log"; exit 1; }

base=$((20000 + RANDOM % 40000))
cat > "$dir/slurm.conf" <<CONFIG
ClusterName=kxtest
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmdParameters=config_overrides
GresTypes=gpu
NodeName=$node NodeAddr=127.0.0.1 CPUs=4 Gres=gpu:2 State=UNKNOWN
PartitionName=kx Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONFIG
# Two "GPUs" behind character devices that exist everywhere (Slurm counts GPUs by their device files).
printf 'NodeName=%s Name=gpu File=/dev/null\nNodeName=%s Name=gpu File=/dev/zero\n' "$node" "$node" > "$dir/gres.conf"
export SLURM_CONF="$dir/slurm.conf"
/usr/sbin/slurmctld -D -i -f "$SLURM_CONF" > "$dir/slurmctld.out" 2>&1 &
pids+=($!)
/usr/sbin/slurmd -D -N "$node" -f "$SLURM_CONF" > "$dir/slurmd.out" 2>&1 &
pids+=($!)
ready=
for _ in $(seq 100); do
  if sinfo -h -o "%t" 2> /dev/null | grep -qE "^idle"; then ready=yes; break; fi
  sleep 0.2
done
[ -n "$ready" ] || { echo "FAIL: the Slurm node did not come up"; sinfo 2>&1 || true; tail -n 20 "$dir"/slurm*.log "$dir"/*.out; exit 1; }

marker="--eval-delay-ms 1501" # not the SSH test's: the two may run at once
KILL_JOB=1 "$here/remote_search_with_kill.sh" "$kx" "$dir" "$marker" --slurm 2 --slurm-partition kx --slurm-time 10 \
  --remote-worker "$fake --gpus 1 $marker"
for _ in $(seq 50); do
  [ -z "$(squeue -h 2> /dev/null)" ] && break
  sleep 0.2
done
if [ -n "$(squeue -h)" ]; then
  echo "FAIL: jobs left in the queue after the search:"
  squeue
  exit 1
fi
echo "PASS: no job left in the queue"
