#!/usr/bin/env bash
# A Slurm cluster of N nodes on this machine (docs/real-execution.md, "On a Slurm cluster"):
# slurmctld on the host end of a bridge of its own, and N slurmd, each in its own network and
# UTS namespace (its own address on the bridge and its own hostname) and in a cgroup of its own
# that limits its CPUs and memory. Jobs stay in their node's cgroup: proctrack/linuxproc and
# task/none never move a process, so a node's limits hold for everything it runs. munge's key
# and socket and Slurm's configuration, state, spool and logs live under one folder; traffic
# stays on the bridge's addresses.
#
# Usage: deploy/slurm/cluster.sh up N [CPUS_PER_NODE] [MEM_MB_PER_NODE]
#        deploy/slurm/cluster.sh down
#        deploy/slurm/cluster.sh status
#        deploy/slurm/cluster.sh install   (munge and Slurm from Debian's packages, as root)
# `up` prints `export SLURM_CONF=...`; `down` (and Ctrl-C or a failure during `up`) removes
# every process, namespace, bridge and cgroup `up` made, by the ids it recorded, and cancels
# every job left in the queue. Needs root, iproute2's `ip netns`, util-linux's `unshare`, and
# writable cgroup v1 `cpu` and `memory` controllers (or cgroup v2 with both); installs munge and
# Slurm from Debian's packages where they are missing.
set -Eeuo pipefail

root="${SCHEDLAB_SLURM_DIR:-/tmp/schedlab-slurm}"
bridge=slbr0
subnet=10.77.0
tag=schedlab-slurm
# task slots a node offers Slurm (its CPUs= in slurm.conf), apart from its CPU quota
slots=64

refuse() { echo "cluster.sh: $*" >&2; exit 1; }

check_machine() {
    [ "$(id -u)" = 0 ] || refuse "needs root (namespaces, a bridge and cgroups are made): run it as root"
    command -v ip >/dev/null || refuse "needs iproute2's \`ip\` (apt-get install iproute2)"
    command -v unshare >/dev/null || refuse "needs util-linux's \`unshare\`"
    ip netns add "$tag-probe" 2>/dev/null || refuse "cannot make a network namespace here (no CAP_SYS_ADMIN, or the kernel lacks them)"
    ip netns del "$tag-probe"
    cgroup_dirs
}

# The cgroup folders a node's limits go in: v1 `cpu` and `memory`, or one v2 folder.
cgroup_dirs() {
    if [ -w /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/memory ]; then
        cpu_base=/sys/fs/cgroup/cpu/$tag
        mem_base=/sys/fs/cgroup/memory/$tag
    elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers \
        && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
        cpu_base=/sys/fs/cgroup/$tag
        mem_base=$cpu_base
    else
        refuse "needs writable cgroup v1 cpu and memory controllers at /sys/fs/cgroup/{cpu,memory}, or cgroup v2 with both"
    fi
}

install_packages() {
    command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null \
        && command -v sbatch >/dev/null && return
    local packages="munge slurmctld slurmd slurm-client"
    export DEBIAN_FRONTEND=noninteractive
    # a fresh machine may have no package lists yet
    apt-get install -y -qq $packages >/dev/null 2>&1 \
        || { apt-get update -qq && apt-get install -y -qq $packages >/dev/null; }
}

# What the Slurm tests need, where they can run (root); elsewhere they skip, saying why.
install() {
    if [ "$(id -u)" != 0 ]; then
        echo "cluster.sh install: not root; the Slurm tests will skip" >&2
        return
    fi
    install_packages
}

# One node's cgroup: CPU quota for `cpus` cores and a memory limit, in both controllers.
make_node_cgroup() {
    local node=$1 cpus=$2 mem_mb=$3
    mkdir -p "$cpu_base/$node" "$mem_base/$node"
    echo "$cpu_base/$node" >> "$root/cgroups"
    [ "$mem_base" = "$cpu_base" ] || echo "$mem_base/$node" >> "$root/cgroups"
    if [ -f "$cpu_base/$node/cpu.cfs_quota_us" ]; then
        echo 100000 > "$cpu_base/$node/cpu.cfs_period_us"
        echo $((cpus * 100000)) > "$cpu_base/$node/cpu.cfs_quota_us"
        echo $((mem_mb * 1024 * 1024)) > "$mem_base/$node/memory.limit_in_bytes"
    else
        echo "+cpu +memory" > "$(dirname "$cpu_base/$node")/cgroup.subtree_control" 2>/dev/null || true
        echo "$((cpus * 100000)) 100000" > "$cpu_base/$node/cpu.max"
        echo $((mem_mb * 1024 * 1024)) > "$mem_base/$node/memory.max"
    fi
}

write_conf() {
    local nodes=$1 cpus=$2 mem_mb=$3 host
    host="$(hostname -s)"
    {
        echo "ClusterName=schedlab"
        echo "SlurmctldHost=$host($subnet.1)"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "AuthInfo=socket=$root/munge/munge.socket"
        echo "CredType=cred/munge"
        echo "StateSaveLocation=$root/state"
        echo "SlurmdSpoolDir=$root/spool/%n"
        echo "SlurmctldPidFile=$root/slurmctld.pid"
        echo "SlurmdPidFile=$root/slurmd-%n.pid"
        echo "SlurmctldLogFile=$root/slurmctld.log"
        echo "SlurmdLogFile=$root/slurmd-%n.log"
        # processes stay where slurmd started them: in the node's own cgroup
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "SchedulerType=sched/builtin"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_CPU_Memory"
        # a node offers SLOTS task slots whatever its quota (config_overrides lets slurmd
        # advertise more CPUs than the machine has): Slurm places tasks, the cgroups time them
        echo "SlurmdParameters=config_overrides"
        # a released job starts at once rather than after the default batch delay of 3 s
        echo "SchedulerParameters=batch_sched_delay=0,sched_min_interval=0"
        echo "ReturnToService=2"
        echo "MpiDefault=none"
        echo "JobRequeue=1"
        for i in $(seq "$nodes"); do
            echo "NodeName=node$i NodeAddr=$subnet.$((10 + i)) CPUs=$slots RealMemory=$mem_mb State=UNKNOWN"
        done
        echo "PartitionName=schedlab Nodes=node[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
    } > "$root/slurm.conf"
}

start_munge() {
    mkdir -p "$root/munge"
    dd if=/dev/urandom of="$root/munge/munge.key" bs=1024 count=1 status=none
    chmod 700 "$root/munge" && chmod 400 "$root/munge/munge.key"
    munged --force --key-file="$root/munge/munge.key" --socket="$root/munge/munge.socket" \
        --pid-file="$root/munged.pid" --log-file="$root/munge/munged.log" --seed-file="$root/munge/seed"
}

make_network() {
    local nodes=$1
    ip link add "$bridge" type bridge
    echo "$bridge" > "$root/bridge"
    ip addr add "$subnet.1/24" dev "$bridge"
    ip link set "$bridge" up
    for i in $(seq "$nodes"); do
        local ns="$tag-node$i"
        ip netns add "$ns"
        echo "$ns" >> "$root/namespaces"
        ip link add "slv$i" type veth peer name eth0 netns "$ns"
        ip link set "slv$i" master "$bridge" up
        ip -n "$ns" addr add "$subnet.$((10 + i))/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
    done
}

# slurmd of node i: in its cgroup (slurmd forks; the daemon and every job it starts inherit
# the groups), in its network namespace, under its hostname. nsenter, not `ip netns exec`,
# which mounts a sysfs of its own where slurmd would find no cgroup file system.
start_node() {
    local i=$1
    sh -c "echo \$\$ > '$cpu_base/node$i/cgroup.procs' && echo \$\$ > '$mem_base/node$i/cgroup.procs' &&
        exec nsenter --net=/var/run/netns/$tag-node$i unshare --uts sh -c 'hostname node$i && exec slurmd -f $root/slurm.conf'"
}

up() {
    local nodes=${1:?usage: cluster.sh up N [CPUS_PER_NODE] [MEM_MB_PER_NODE]}
    local cpus=${2:-1} mem_mb=${3:-2048}
    [ -e "$root/slurm.conf" ] && refuse "a cluster is up already under $root: run \`cluster.sh down\` first"
    check_machine
    install_packages
    mkdir -p "$root/state"
    trap 'trap - ERR; echo "cluster.sh: up failed; removing what it made" >&2; down; exit 1' ERR
    trap 'down; exit 130' INT TERM
    write_conf "$nodes" "$cpus" "$mem_mb"
    for i in $(seq "$nodes"); do mkdir -p "$root/spool/node$i"; make_node_cgroup "node$i" "$cpus" "$mem_mb"; done
    start_munge
    make_network "$nodes"
    export SLURM_CONF="$root/slurm.conf"
    slurmctld -i -f "$SLURM_CONF"
    for i in $(seq "$nodes"); do start_node "$i"; done
    idle() { timeout 5 sinfo -h -N -o %t 2>/dev/null | grep -cx idle || true; }
    local deadline=$((SECONDS + 60))
    while [ "$(idle)" != "$nodes" ] && [ "$SECONDS" -lt "$deadline" ]; do
        kill -0 "$(cat "$root/slurmctld.pid" 2>/dev/null)" 2>/dev/null || break
        sleep 0.5
    done
    [ "$(idle)" = "$nodes" ] || { sinfo -N >&2; tail -n 20 "$root"/*.log >&2; false; }
    trap - ERR INT TERM
    sinfo -N
    echo "export SLURM_CONF=$root/slurm.conf"
}

# Everything `up` recorded, removed by id: jobs, daemons, namespaces, the bridge, cgroups.
down() {
    set +e
    cgroup_dirs
    if [ -e "$root/slurm.conf" ]; then
        export SLURM_CONF="$root/slurm.conf"
        scancel --full --quiet --user=root 2>/dev/null
        scontrol shutdown >/dev/null 2>&1
        sleep 2
    fi
    for pidfile in "$root"/slurmd-*.pid "$root/slurmctld.pid" "$root/munged.pid"; do
        [ -s "$pidfile" ] && kill -9 "$(cat "$pidfile")" 2>/dev/null
    done
    if [ -f "$root/cgroups" ]; then
        # anything a node still runs (a job's processes) is in its cgroup or in a container's
        # group inside it (schedlab's jobs make those), which go deepest first
        while read -r group; do
            [ -d "$group" ] && find "$group" -name cgroup.procs -exec cat {} + 2>/dev/null | xargs -r kill -9 2>/dev/null
        done < "$root/cgroups"
        sleep 1
        while read -r group; do
            [ -d "$group" ] && find "$group" -depth -type d -exec rmdir {} + 2>/dev/null
        done < "$root/cgroups"
        rmdir "$cpu_base" "$mem_base" 2>/dev/null
    fi
    [ -f "$root/namespaces" ] && while read -r ns; do ip netns del "$ns" 2>/dev/null; done < "$root/namespaces"
    [ -f "$root/bridge" ] && ip link del "$(cat "$root/bridge")" 2>/dev/null
    rm -rf "$root"
    set -e
}

status() {
    [ -e "$root/slurm.conf" ] || { echo "no cluster under $root"; return; }
    SLURM_CONF="$root/slurm.conf" sinfo -N
    SLURM_CONF="$root/slurm.conf" squeue
}

case "${1:-}" in
    up) shift; up "$@" ;;
    install) install ;;
    down) down ;;
    status) status ;;
    *) refuse "usage: cluster.sh up N [CPUS_PER_NODE] [MEM_MB_PER_NODE] | down | status | install" ;;
esac
