#!/usr/bin/env bash
# Seeds each target's corpus from the shipped files (fuzz/corpus/, not committed).
set -euo pipefail
cd "$(dirname "$0")"
for target in workload_toml set_override run_manifest import_philly import_openb import_v2018_dags \
    import_machines v2018_usage jobs_parquet sweep_spec checkpoint; do
    mkdir -p "corpus/$target"
done
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
# the head of each shipped trace (header and 200 rows), whole machine lists, job tables, specs
# (head closes the pipe early, which pipefail would count as gzip failing)
head_of() { (set +o pipefail; if [[ $1 == *.gz ]]; then gzip -dc "$1" | head -n 201; else head -n 201 "$1"; fi); }
head_of ../data/traces/philly/philly_jobs_2017-09_to_10.csv.gz > corpus/import_philly/philly.csv
head_of ../data/traces/alibaba_gpu_v2023/openb_pods_before_t12200000.csv > corpus/import_openb/openb.csv
head_of ../data/traces/alibaba_v2018_batch_dag/batch_task_dags_arrival_day0-4.csv.gz \
    | tee corpus/import_v2018_dags/v2018.csv > corpus/v2018_usage/v2018.csv
cp ../data/traces/alibaba_gpu_v2023/openb_node_list_all_node.csv corpus/import_machines/openb_nodes.csv
cp ../data/traces/alibaba_pai_v2020/pai_machine_spec.csv corpus/import_machines/pai_machines.csv
for f in ../data/workloads/*.jobs.parquet; do
    [ "$(stat -c %s "$f")" -lt 200000 ] && cp "$f" "corpus/jobs_parquet/$(basename "$f")"
done
cp ../deploy/example-sweep.toml corpus/sweep_spec/example-sweep.toml
printf 'name = "sets"\npolicies = ["fifo", "las"]\nworkloads = ["data/workloads/philly-mini.toml"]\nseeds = [0, 1]\n\n[overrides]\nbusy = { "window.queued" = 4 }\n' \
    > corpus/sweep_spec/sets.toml
cp ../data/policies/dag-ddqn/*.bpk corpus/checkpoint/

