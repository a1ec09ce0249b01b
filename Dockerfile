# chunkd in a container. Multi-stage: the build stage compiles (TypeScript, sqlite3's native addon);
# the runtime stage holds only what runs, as a non-root user, with the pipelines database in a volume.
#
#   docker build -t chunkd .                          every optional extra
#   docker build --build-arg EXTRAS=none -t chunkd .  without them (npm install --omit=optional)
#   docker run -p 8000:8000 -v chunkd-data:/data chunkd
#
# test/docker.test.ts checks this file's structure (CI cannot run Docker).

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
# sqlite3 compiles its native addon when no prebuilt one fits: Python, make and a C++ compiler.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# onnxruntime-node's postinstall would download CUDA libraries; node-gyp uses the image's own headers.
ENV ONNXRUNTIME_NODE_INSTALL=skip \
    npm_config_nodedir=/usr/local
# all: install the optional extras; none: leave them out (their plugins answer 501 with the install command).
ARG EXTRAS=all
COPY package.json package-lock.json ./
# The build needs every optional package: the bundler's native binaries (rollup, esbuild) are
# optional dependencies too. The extras are left out by the prune after the build.
RUN npm install --no-audit --no-fund
COPY . .
RUN if [ "$EXTRAS" = "none" ]; then omit="--omit=optional"; else omit=""; fi \
 && npm run build \
 && npm prune --omit=dev $omit --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
# The shutdown grace stays below docker stop's 10 s, so in-flight requests end before a SIGKILL.
ENV NODE_ENV=production \
    CHUNKD_HOST=0.0.0.0 \
    CHUNKD_PORT=8000 \
    CHUNKD_DATA_DIR=/data \
    CHUNKD_SHUTDOWN_GRACE_MS=8000
# The code stays owned by root, read-only to the server; only the data directory is writable.
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.CHUNKD_PORT || 8000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/cli/index.js", "serve"]
