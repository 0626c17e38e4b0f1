#!/usr/bin/env bash
# How well calibrate predicts sizes it did not see, on this machine's own MPI: plans tiny-8 on one
# host of data/clusters/lab-h100.json, sweeps its TP and PP groups on 8 local ranks (4 KiB to
# 256 KiB), fits with 16 KiB and 64 KiB held out, and prints each held-out size's median error.
# An accuracy figure for a quiet machine (the unit tests fit data the model made): oversubscribed
# or busy CPUs move it. Usage: bench/loopback_calibration.sh [BUILD_DIR=build]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$build/topoplan" plan --cluster data/clusters/lab-h100.json --job data/jobs/tiny-8.json --emit json -o "$out" >/dev/null
start=$SECONDS
mpiexec --allow-run-as-root --oversubscribe -np 8 "$build/topoplan-validate" --plan "$out/plan.json" --kinds tp,pp \
  --sizes 4KiB,8KiB,16KiB,32KiB,64KiB,128KiB,256KiB --iters 40 --rounds 8 --warmup 4 --json "$out/sweep.json" >/dev/null
"$build/topoplan" calibrate --measured "$out/sweep.json" --hold-out 16KiB,64KiB -o "$out/calibration.json" --json >"$out/fit.json" || true
python3 - "$out/fit.json" <<'PY'
import json, sys
fit = json.load(open(sys.argv[1]))
for s in fit["held_out"]["sizes"]:
    print(f"held out {s['bytes']:>7} B: median error {100 * s['median_error']:+.1f}%")
PY
echo "sweep and fit: $((SECONDS - start)) s on $(nproc) cores"
