#!/usr/bin/env bash
# Seeds each target's corpus from the shipped files (fuzz/corpus/, not committed).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p corpus/workload_toml corpus/set_override corpus/run_manifest
find ../data/workloads -name '*.toml' | while read -r f; do
    cp "$f" "corpus/workload_toml/$(echo "${f#../data/workloads/}" | tr / _)"
done
for f in ../data/policies/*/manifest.json; do
    cp "$f" "corpus/run_manifest/$(basename "$(dirname "$f")").json"
done
k=0
for pair in 'window.interface=one-choice' 'window.work_conserving=false' 'episode.max_time_s=3600' \
    'scaling.workers=[0.5, 1.0, 2.0]' 'window.queued=3' 'reward.lambda_idle=0.5' \
    'family.length_s="1h..2h"' 'jobs_table=x.parquet' 'machines=[]'; do
    printf '%s' "$pair" > "corpus/set_override/seed-$k"
    k=$((k + 1))
done
