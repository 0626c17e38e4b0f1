#!/usr/bin/env bash
# The Kubernetes manifests topoplan writes, checked against the API's schemas (validate.mjs): plans
# of three shapes (one host; hosts in one leaf group; hosts across pods), each written as every
# manifest format. Each must validate, and each of validate.mjs's breakages of them must not.
#   tests/k8s/check.sh TOPOPLAN BUILD_DIR
# Exit 77 (skipped, said why) without node or without the packages scripts/setup installs into
# BUILD_DIR/k8s-check.
set -euo pipefail
topoplan=$1 build=$2
here=$(cd "$(dirname "$0")" && pwd)
data=$here/../../data
modules=$build/k8s-check/node_modules
command -v node >/dev/null || { echo "k8s check: node not found: skipped"; exit 77; }
[[ -d $modules ]] || { echo "k8s check: $modules missing (scripts/setup installs it): skipped"; exit 77; }
out=$build/k8s-check/out
rm -rf "$out"
mkdir -p "$out"

plan() {
  local name=$1
  shift
  "$topoplan" plan "$@" --emit jobset,pytorchjob,mpijob -o "$out/$name" --image nvcr.io/nvidia/pytorch:25.01-py3 \
    --queue team-a -- python pretrain_gpt.py --lr 3e-4 >"$out/$name.txt"
}
cluster=$data/clusters/threetier-h100.json
plan one-host --cluster "$cluster" --job "$data/jobs/tiny-8.json" --nodes h0001
plan one-leaf --cluster "$cluster" --job "$data/jobs/llama3-70b.json" --nodes 'h[0001-0016]'
plan four-pods --cluster "$cluster" --job "$data/jobs/llama3-70b.json" \
  --nodes 'h[0001-0004,0257-0260,0513-0516,0769-0772]'

manifests=("$out"/*/*.yaml)
echo "k8s check: ${#manifests[@]} manifests"
node "$here/validate.mjs" "$modules" "${manifests[@]}"
node "$here/validate.mjs" "$modules" --mutations "${manifests[@]}"
