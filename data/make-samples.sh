#!/usr/bin/env bash
# Regenerates the bundled sample traces with smrlab's own synthesizer (see data/README.md).
set -euo pipefail
cd "$(dirname "$0")"
SMRLAB=${SMRLAB:-../.venv/bin/smrlab}
for preset in wdev mds ts usr; do
  "$SMRLAB" trace synth --preset "$preset" --requests 100000 --seed 0 --out "$preset.csv.gz"
done
