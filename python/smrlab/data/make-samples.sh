#!/usr/bin/env bash
# Regenerates the bundled sample traces with smrlab's own synthesizer (see data/README.md), into
# this folder or into $OUT (data/ in the repository is a link to this folder, which the wheel ships as package data).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd -P)   # python/smrlab/data, also when run as data/make-samples.sh
SMRLAB=${SMRLAB:-$here/../../../.venv/bin/smrlab}
OUT=${OUT:-$here}
for preset in wdev mds ts usr; do
  "$SMRLAB" trace synth --preset "$preset" --requests 100000 --seed 0 --out "$OUT/$preset.csv.gz"
done
# CloudPhysics-like virtual-machine traces for the uCache experiments (see README.md).
"$SMRLAB" trace synth --requests 100000 --seed 0 -p write_ratio=0.8 -p seq=0.3 -p hot_fraction=0.3 -p hot_regions=64 \
  -p cold_streams=4 -p written_range=256MiB -p accessed_range=300MiB --out "$OUT/vm-local.csv.gz"
"$SMRLAB" trace synth --requests 100000 --seed 0 -p write_ratio=0.9 -p seq=0 -p hot_fraction=0.7 -p hot_regions=1000 \
  -p hot_size=4000KiB -p sizes=4k:1,64k:1 -p written_range=256MiB -p accessed_range=256MiB --out "$OUT/vm-scatter.csv.gz"
