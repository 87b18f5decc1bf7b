#!/usr/bin/env bash
# Rebuilds models/key-model.onnx from Debian packages and this folder (training only).
#   bash tools/key-model/build.sh [DATA_DIR]      # default /var/tmp/stemforge-key-data
# Needs: apt-get install fluidsynth timidity fluid-soundfont-gm timgm6mb-soundfont
# musescore-general-soundfont (versions in README.md), Python 3.11 with requirements.txt, and the
# project's Node (npm ci): the features are computed by src/analysis itself.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
data="${1:-/var/tmp/stemforge-key-data}"
py="${PYTHON:-python3}"
here="$root/tools/key-model"
"$py" "$here/make_data.py" "$data" --split val --pieces 480
"$py" "$here/make_data.py" "$data" --split train --pieces 2400
"$py" "$here/make_data.py" "$data" --split modal --pieces 800
for split in val train modal; do node "$root/bin/run-ts.mjs" "$here/features.ts" "$data" "$split"; done
"$py" "$here/train.py" "$data" "$root/models/key-model.onnx" --steps 4000
sha256sum "$root/models/key-model.onnx"
