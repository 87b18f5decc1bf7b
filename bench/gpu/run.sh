#!/usr/bin/env bash
# On the GPU machine: collects the pieces of .gpu-bench/ (bench/gpu/prepare.sh) that this call
# carried into a staging folder kept between calls (one call carries at most 64 MiB, so the bundle
# and the model's parts come over several calls), and once all are there runs bench/separate-gpu.ts.
# Arguments go to the bench (--seconds 240 --quality BEST --parity 4 are its defaults). Writes
# gpu-bench.json and gpu-bench.log to $OUT (or the staging folder).
set -euo pipefail
cd "$(dirname "$0")/../.."
stage=${SF_GPU_STAGE:-/root/sf-gpu-stage}
mkdir -p "$stage"
for f in .gpu-bench/*; do
  if [ -f "$f" ]; then cp -f "$f" "$stage/"; fi
done
if [ ! -f "$stage/bundle.tar.xz" ]; then
  echo "gpu bench: staged $(ls "$stage" | tr '\n' ' '); carry .gpu-bench/bundle.tar.xz next"
  exit 0
fi
if [ ! -x "$stage/run/node" ]; then
  mkdir -p "$stage/run"
  xz -dc "$stage/bundle.tar.xz" | tar -C "$stage/run" -xf -
fi
model=$stage/htdemucs.onnx
if [ ! -f "$model" ]; then
  have=$(find "$stage" -maxdepth 1 -name 'model.part-*' | wc -l)
  want=$(cat "$stage/run/model.parts")
  if [ "$have" -lt "$want" ]; then
    echo "gpu bench: $have of $want model parts staged; carry the next"
    exit 0
  fi
  cat "$stage"/model.part-* >"$model.tmp"
  echo "$(cat "$stage/run/model.sha256")  $model.tmp" | sha256sum -c --quiet
  mv "$model.tmp" "$model"
fi

# Vulkan: the loader and libglvnd from the bundle where the machine lacks them (NVIDIA's Vulkan
# driver lives in libGLX_nvidia, which needs libGLdispatch); NVIDIA's ICD where the driver keeps it.
if ! ldconfig -p | grep -q 'libvulkan\.so\.1' || ! ldconfig -p | grep -q 'libGLdispatch\.so\.0'; then
  for deb in "$stage"/run/debs/*.deb; do dpkg -x "$deb" /; done
  ldconfig
fi
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ] && ! ls /usr/share/vulkan/icd.d/nvidia_icd.json /etc/vulkan/icd.d/nvidia_icd.json >/dev/null 2>&1; then
  export VK_DRIVER_FILES=$nvidia_icd
fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-/tmp/sf-xdg-$(id -u)}
mkdir -p -m 700 "$XDG_RUNTIME_DIR"

report=${OUT:-$stage}
cd "$stage/run"
set -o pipefail
./node bench.mjs --model "$model" --input song.f32 --json "$report/gpu-bench.json" "$@" 2>&1 | tee "$report/gpu-bench.log"
