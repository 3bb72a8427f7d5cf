#!/usr/bin/env bash
# Workers on a host reached by SSH, against a real sshd: one started on 127.0.0.1 on a port of its own with a
# generated host key and user key. `kx search --ssh 127.0.0.1:0,1` runs the fake worker there posing as two GPUs;
# one remote worker is killed mid-evaluation. The search restarts it, runs that evaluation again and finishes;
# nothing is lost in the archive, the GPUs carry the host's name, and no remote worker outlives the search.
# Usage: tst_sshworkers.sh KX FAKEWORKER      Exit 77 (skipped) without sshd, ssh or ssh-keygen.
set -euo pipefail
kx=${1:?usage: tst_sshworkers.sh KX FAKEWORKER}
fake=$(realpath "${2:?fake worker}") # the remote shell starts in the home folder
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
for tool in /usr/sbin/sshd ssh ssh-keygen python3; do
  command -v "$tool" > /dev/null || { echo "skipped: $tool not found (Debian: apt install openssh-server openssh-client python3)"; exit 77; }
done
dir=$(mktemp -d)
cleanup() {
  [ -f "$dir/sshd.pid" ] && kill "$(cat "$dir/sshd.pid")" 2> /dev/null || true
  rm -rf "$dir"
}
trap cleanup EXIT

ssh-keygen -q -t ed25519 -N '' -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -f "$dir/user_key"
cp "$dir/user_key.pub" "$dir/authorized_keys"
chmod 600 "$dir/authorized_keys"
[ "$(id -u)" = 0 ] && mkdir -p /run/sshd # sshd's privilege separation directory
started=
for attempt in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 40000))
  cat > "$dir/sshd_config" <<CONFIG
Port $port
ListenAddress 127.0.0.1
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitRootLogin prohibit-password
LogLevel ERROR
CONFIG
  if /usr/sbin/sshd -f "$dir/sshd_config" -E "$dir/sshd.log"; then
    for _ in $(seq 50); do [ -s "$dir/sshd.pid" ] && break; sleep 0.1; done
    started=yes
    break
  fi
done
[ -n "$started" ] || { echo "FAIL: sshd did not start"; cat "$dir/sshd.log"; exit 1; }
ssh_command="ssh -p $port -i $dir/user_key -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
$ssh_command -o BatchMode=yes 127.0.0.1 true || { echo "FAIL: cannot log in to the test sshd"; cat "$dir/sshd.log"; exit 1; }

marker="--eval-delay-ms 1500"
"$here/remote_search_with_kill.sh" "$kx" "$dir" "$marker" --ssh 127.0.0.1:0,1 --ssh-command "$ssh_command" \
  --remote-worker "$fake --gpus 2 $marker"
