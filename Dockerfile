# Stemforge: one image for every role. `docker run IMAGE` serves the API, the dashboard and the
# workers (embedded); `serve --no-workers` and `worker` are the scale-out roles; any other
# stemforge command runs as given (`docker run --rm IMAGE models list`). docs/deploy.md.

FROM node:24-bookworm-slim AS build
# A TLS-inspecting proxy's CA bundle for npm, mounted for the build only, never baked in:
#   --volume /etc/ssl/certs/ca-certificates.crt:/run/build-ca.crt:ro --build-arg NODE_EXTRA_CA_CERTS=/run/build-ca.crt
ARG NODE_EXTRA_CA_CERTS
# onnxruntime-node's install script would fetch CUDA libraries from NuGet; the image runs the CPU
# and WebGPU providers the package ships. Native builds use the base image's Node headers.
ENV ONNXRUNTIME_NODE_INSTALL=skip npm_config_nodedir=/usr/local npm_config_update_notifier=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY bin ./bin
COPY src ./src
COPY models ./models
COPY web ./web
RUN npm run build:web \
  && rm -rf web/src web/build.mjs web/tsconfig.json \
  && arch=$(node -p process.arch) \
  && find node_modules/onnxruntime-node/bin/napi-v6 -mindepth 1 -maxdepth 1 ! -name linux -exec rm -rf {} + \
  && find node_modules/onnxruntime-node/bin/napi-v6/linux -mindepth 1 -maxdepth 1 ! -name "$arch" -exec rm -rf {} +

FROM node:24-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends ffmpeg yt-dlp ca-certificates \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    STEMFORGE_DATA_DIR=/data \
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
ENTRYPOINT ["node", "/app/bin/stemforge.mjs"]
CMD ["serve"]
