#!/usr/bin/env bash
# Rebuilds models/beat-model.onnx from Debian packages and this folder (training only).
#   bash tools/beat-model/build.sh [DATA_DIR]      # default /var/tmp/stemforge-beat-data
# Needs: apt-get install fluidsynth fluid-soundfont-gm mma ffmpeg, Python 3.11 with
# tools/key-model/requirements.txt, and the project's Node (npm ci): the features are computed by
# src/analysis itself.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
data="${1:-/var/tmp/stemforge-beat-data}"
py="${PYTHON:-python3}"
here="$root/tools/beat-model"
"$py" "$here/make_data.py" "$data/composed" 300
"$py" "$here/make_mma.py" "$data/mma" 2
node "$root/bin/run-ts.mjs" "$here/features.ts" "$data/composed" "$data/composed-features"
node "$root/bin/run-ts.mjs" "$here/features.ts" "$data/mma" "$data/mma-features"
"$py" "$here/train.py" "$root/models/beat-model.onnx" "$data/composed-features" "$data/mma-features" --steps 3000
sha256sum "$root/models/beat-model.onnx"
