#!/usr/bin/env bash
# Smoke test of the Slurm scripts on a one-node cluster on localhost: installs munge and
# Slurm from Debian's packages, starts munged, slurmctld and slurmd by hand (no systemd) with a
# temporary SLURM_CONF, submits a 4-shard sweep with submit.sh, checks that the merged results
# equal an unsharded run row for row, then shuts the cluster down and stops the processes it
# started by their ids. Needs root. Usage: deploy/slurm/smoke.sh [SCHEDLAB_BINARY]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
schedlab="$(realpath "${1:-$repo/target/release/schedlab}")"
[ -x "$schedlab" ] || { echo "no schedlab binary at $schedlab (build it or pass its path)" >&2; exit 1; }

DEBIAN_FRONTEND=noninteractive apt-get install -y -qq munge slurmctld slurmd slurm-client >/dev/null

tmp="$(mktemp -d /tmp/schedlab-slurm-smoke.XXXXXX)"
pids=()
stop_all() {
    SLURM_CONF="$tmp/slurm.conf" scontrol shutdown >/dev/null 2>&1 || true
    sleep 2
    for pidfile in "$tmp/slurmd.pid" "$tmp/slurmctld.pid" "$tmp/munged.pid"; do
        [ -s "$pidfile" ] && pids+=("$(cat "$pidfile")")
    done
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
}
trap stop_all EXIT

# munge: its own key, socket and files under tmp
mkdir -p "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 700 "$tmp/munge" && chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/munge.socket" \
    --pid-file="$tmp/munged.pid" --log-file="$tmp/munge/munged.log" --seed-file="$tmp/munge/seed"

host="$(hostname -s)"
mkdir -p "$tmp/state" "$tmp/spool"
cat > "$tmp/slurm.conf" <<CONF
ClusterName=smoke
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=smoke Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -i
slurmd
for _ in $(seq 60); do
    sinfo -h -o %t 2>/dev/null | grep -qx idle && break
    sleep 1
done
sinfo -h -o %t | grep -qx idle || { echo "the node never came up" >&2; cat "$tmp/slurmctld.log" "$tmp/slurmd.log" >&2; exit 1; }

# a small sweep with a trained agent, so training-once is exercised too
cat > "$tmp/spec.toml" <<SPEC
name = "slurm-smoke"
policies = ["static", "random", "train:ppo"]
workloads = ["$repo/data/workloads/small-4node.toml"]
seeds = [0, 1, 2, 3]
[train]
steps = 64
SPEC

merge_job=$("$here/submit.sh" "$tmp/spec.toml" 4 "$tmp/work" "$schedlab")
for _ in $(seq 600); do
    [ -z "$(squeue -h)" ] && break
    sleep 1
done
[ -f "$tmp/work/merged/results.csv" ] || { echo "merge job $merge_job left no results" >&2; tail -n 20 "$tmp"/work/*.out >&2; exit 1; }
ls "$tmp/work/runs"/*/ | grep -c __ppo__ | grep -qx 1 || { echo "ppo was not trained exactly once" >&2; exit 1; }

"$schedlab" sweep "$tmp/spec.toml" --out "$tmp/whole" >/dev/null
if cmp -s "$tmp/whole/results.csv" "$tmp/work/merged/results.csv"; then
    echo "slurm smoke: 4 shards merged equal the unsharded sweep ($(($(wc -l < "$tmp/whole/results.csv") - 1)) rows)"
else
    diff "$tmp/whole/results.csv" "$tmp/work/merged/results.csv" | head >&2
    exit 1
fi
