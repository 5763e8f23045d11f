#!/usr/bin/env bash
# Submits a sharded sweep: training once, then SHARDS array tasks after it, then the merge
# after every task succeeded (--dependency=afterok). Usage:
#   deploy/slurm/submit.sh SPEC.toml SHARDS WORK_DIR [SCHEDLAB_BINARY]
# WORK_DIR must be on a file system every node sees. Prints the merge job's id.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
spec="$(realpath "$1")" shards="$2" work="$(realpath -m "$3")"
schedlab="$(realpath "${4:-$(command -v schedlab)}")"
mkdir -p "$work"
export SCHEDLAB="$schedlab" SPEC="$spec" WORK="$work"
cd "$work"
train=$(sbatch --parsable --export=ALL "$here/train.sbatch")
array=$(sbatch --parsable --export=ALL --dependency="afterok:$train" \
    --array="0-$((shards - 1))" "$here/sweep.sbatch")
sbatch --parsable --export=ALL --dependency="afterok:$array" "$here/merge.sbatch"
