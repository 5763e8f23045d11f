#!/usr/bin/env bash
# Applies sweep-job.yaml's parts in order (claim, training, shards, merge), each after the
# one before completed: Kubernetes Jobs have no dependencies of their own.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
timeout="${TIMEOUT:-24h}"
split() { awk -v want="$1" 'BEGIN{RS="---\n"} $0 ~ "name: " want "\n" {print "---"; print}' "$here/sweep-job.yaml"; }
split schedlab-work | kubectl apply -f -
for job in schedlab-train schedlab-sweep schedlab-merge; do
    split "$job" | kubectl apply -f -
    kubectl wait --for=condition=complete --timeout="$timeout" "job/$job"
done
