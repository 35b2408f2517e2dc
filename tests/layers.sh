#!/bin/sh
# layers.sh - the folder tree is the pipeline's layers: tests/layers.py checks
# that every include names its folder and goes down a layer, never up, and
# closes no cycle; first it checks that it catches each of those.
set -u
src=${HDSIM_SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
command -v python3 >/dev/null 2>&1 || { echo "layers.sh: no python3: skipped"; exit 77; }
python3 "$src/tests/layers.py" --self-test || exit 1
python3 "$src/tests/layers.py" "$src"
