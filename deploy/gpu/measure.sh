#!/usr/bin/env bash
# Issue 56's measurement on a machine with an NVIDIA GPU and many cores (docs/learned.md, "GPU").
# Run from the repository root with SCHEDLAB naming a release binary built with
# `cargo build --release -p schedlab-experiments --features cuda` after deploy/gpu/llvm-prefix.sh
# (docs/learned.md, "GPU"); strip and xz it to carry it (31 MB). Everything it prints is also
# written under $OUT (default gpu-measure/).
set -euo pipefail
BIN=${SCHEDLAB:-target/release/schedlab}
OUT=${OUT:-gpu-measure}
mkdir -p "$OUT"
bench=(bench train --agents ppo --workload data/workloads/philly-mini.toml
  --set window.interface=one-choice --set episode.max_steps_per_decision=4 --set hidden=128
  --set rollout_steps=256 --envs 4,64,256 --seconds 20)

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv | tee "$OUT/gpu.txt"
nproc | tee "$OUT/cores.txt"
# PPO on the GPU, and on the CPU at 2 and 16 threads: env steps per second per row
"$BIN" --device cuda "${bench[@]}" | tee "$OUT/bench-cuda.txt"
"$BIN" --device flex --threads 2,16 "${bench[@]}" | tee "$OUT/bench-flex.txt"
# a run trained on the GPU resumes and plays on the CPU
"$BIN" --device cuda train --agent ppo --workload data/workloads/small-4node.toml --seed 0 \
  --steps 2000 --out "$OUT/runs" | tee "$OUT/train-cuda.txt"
run=$(ls -d "$OUT"/runs/*/ | head -n 1)
"$BIN" --device flex eval --policy "$run" --workload data/workloads/small-4node.toml \
  --seeds 0..3 | tee "$OUT/eval-flex.txt"
# the GNN's sampled decoding on every core
for threads in 2 16; do
  start=$(date +%s%N)
  "$BIN" --threads "$threads" eval --policy dag-gnn:episodes=1024 \
    --workload data/workloads/dag-layered.toml --seeds 0..3 > "$OUT/gnn-$threads.txt"
  echo "dag-gnn:episodes=1024 on $threads threads: $((($(date +%s%N) - start) / 1000000)) ms" \
    | tee -a "$OUT/gnn.txt"
done
