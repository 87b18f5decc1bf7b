#!/usr/bin/env bash
# Makes a local stand-in for the official node:24-bookworm-slim image, for machines that reach no
# container registry (test/container.test.ts): Debian bookworm minbase from the mirror apt is
# configured with, the project's pinned Node (bin/install-node.mjs) under /usr/local with npm beside
# it, and a `node` user with uid 1000, as the official image lays them out. Does nothing when an
# image of that name exists. Needs root, debootstrap and podman.
set -euo pipefail
cd "$(dirname "$0")/../.."
image=docker.io/library/node:24-bookworm-slim
podman image exists "$image" && exit 0

mirror=$(awk '$1 == "URIs:" { print $2; exit }' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$mirror" ] || mirror=$(awk '$1 == "deb" { print $2; exit }' /etc/apt/sources.list 2>/dev/null || true)
[ -n "$mirror" ] || mirror=http://deb.debian.org/debian
rootfs=$(mktemp -d /var/tmp/stemforge-base.XXXXXX)
trap 'rm -rf "$rootfs"' EXIT

echo "base image: debootstrap bookworm minbase from $mirror"
debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >"$rootfs.log" 2>&1 || {
  tail -20 "$rootfs.log"
  exit 1
}
rm -f "$rootfs.log"

node bin/install-node.mjs --dir "$rootfs/usr/local/.node"
for part in bin include lib share; do
  mkdir -p "$rootfs/usr/local/$part"
  cp -a "$rootfs/usr/local/.node/$part/." "$rootfs/usr/local/$part/" 2>/dev/null || true
done
rm -rf "$rootfs/usr/local/.node"

# npm, as the official image carries it: the machine's own npm version, from the registry.
work=$(mktemp -d)
(cd "$work" && npm pack --silent "npm@$(npm --version)" >/dev/null)
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
rm -rf "$work"
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/archives/*.deb

version=$("$rootfs/usr/local/bin/node" --version)
tar -C "$rootfs" -c . | podman import \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "ENV NODE_VERSION=${version#v}" \
  --change 'CMD ["node"]' - "$image" >/dev/null
echo "base image: $image (stand-in, Node $version)"
