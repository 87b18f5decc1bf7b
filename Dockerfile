# Stemforge: one image for every role. `docker run IMAGE` serves the API, the dashboard and the
# workers (embedded); `serve --no-workers` and `worker` are the scale-out roles; any other
# stemforge command runs as given (`docker run --rm IMAGE models list`). docs/deploy.md.
#
# Lean and locked down (issue 42): production dependencies only, no tsx or esbuild (Node 24 runs
# the TypeScript itself, --experimental-transform-types), ffmpeg is the bundled WebAssembly build
# from npm (@ffmpeg/core, no system libraries), yt-dlp is Debian's with the Python runtime it
# needs and no toolchain, tini reaps children, and the service writes only to /data: it runs with
# `--read-only` and /data the one writable mount.

FROM node:24-bookworm-slim AS build
# A TLS-inspecting proxy's CA bundle for npm, mounted for the build only, never baked in:
#   --volume /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg NODE_EXTRA_CA_CERTS=/run/build-ca.crt
ARG NODE_EXTRA_CA_CERTS
# No install script runs (onnxruntime-node's would fetch CUDA libraries; better-sqlite3 and the
# others ship their builds in their packages).
ENV npm_config_update_notifier=false
WORKDIR /app
COPY package.json package-lock.json ./
# Everything first (esbuild bundles the dashboard; CI type-checks it, so the build does not),
# production dependencies only afterwards.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY models ./models
COPY web ./web
RUN node node_modules/esbuild/install.js \
  && node web/build.mjs --no-check \
  && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
  && rm -rf web/src web/build.mjs web/tsconfig.json bin/run-ts.mjs bin/install-node.mjs \
  && arch=$(node -p process.arch) \
  && rm -rf node_modules/tsx node_modules/esbuild node_modules/@esbuild node_modules/get-tsconfig \
       node_modules/resolve-pkg-maps node_modules/@ffmpeg/core/dist/esm \
  && find node_modules/better-sqlite3/prebuilds -type f ! -name "linux-$arch.node" -delete \
  && rm -rf node_modules/better-sqlite3/deps node_modules/better-sqlite3/src \
  && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 1 -maxdepth 1 ! -name linux -exec rm -rf {} + \
  && find node_modules/onnxruntime-node/bin/napi-v6/linux -mindepth 1 -maxdepth 1 ! -name "$arch" -exec rm -rf {} + \
  && ! find node_modules \( -path '*/node_modules/tsx' -o -path '*/node_modules/esbuild' -o -path '*/node_modules/@esbuild' \) | grep -q .

FROM node:24-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends yt-dlp tini ca-certificates \
  && apt-get clean \
  && rm -rf /var/lib/apt/lists/* /var/cache/apt/* /usr/share/doc /usr/share/man
# TMPDIR: what Node's os.tmpdir() and yt-dlp use, under the one writable folder; XDG_CACHE_HOME:
# yt-dlp's cache, likewise.
ENV NODE_ENV=production \
    NODE_OPTIONS="--experimental-transform-types --disable-warning=ExperimentalWarning" \
    STEMFORGE_DATA_DIR=/data \
    TMPDIR=/data/tmp \
    XDG_CACHE_HOME=/data/cache \
    HOST=0.0.0.0 \
    PORT=8080 \
    STEMFORGE_CLI="docker exec <container> stemforge"
WORKDIR /app
# The code stays root's and read-only to the service; it writes only under /data (and the models
# folder when an operator runs `models pull`), which a volume keeps across containers.
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data && ln -s /app/bin/stemforge.mjs /usr/local/bin/stemforge
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["node", "/app/bin/healthcheck.mjs"]
# tini is PID 1: it forwards signals to the service and reaps every child that ends (separation
# processes, ffmpeg, yt-dlp), so none is left a zombie.
ENTRYPOINT ["/usr/bin/tini", "--", "node", "/app/bin/stemforge.mjs"]
CMD ["serve"]
