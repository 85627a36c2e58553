# syntax=docker/dockerfile:1
# The composed server (apps/server) for the hosted, multi-user mode (`--auth oauth`, see
# docs/deployment.md). Two stages: the workspace is built with every dependency, then only
# apps/server with its production dependencies (`pnpm deploy --prod`) goes into a slim image
# that runs as the unprivileged `node` user.
#
#   docker build -t x-mcp-server .
#   docker compose up -d          # two replicas, Redis and Caddy: compose.yaml

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
ENV PNPM_HOME=/pnpm \
    PATH=/pnpm:$PATH \
    CI=true
# pnpm from npm, the version of package.json's packageManager field (deploy-files.test.ts keeps
# them equal), as .ci/run installs it: corepack's download of pnpm fails its signature check on
# some machines.
RUN npm install --global --no-audit --no-fund pnpm@10.34.9
WORKDIR /src
# Dependencies first, from the lockfile alone: this layer is reused until the lockfile changes.
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN --mount=type=cache,id=pnpm,target=/pnpm/store pnpm fetch --frozen-lockfile
COPY . .
RUN --mount=type=cache,id=pnpm,target=/pnpm/store \
    pnpm install --offline --frozen-lockfile \
 && pnpm turbo run build --filter=@x/server... \
 && pnpm --filter=@x/server deploy --prod --legacy --config.auto-install-peers=false /out

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    XDG_STATE_HOME=/data \
    MCP_LOG_LEVEL=info
WORKDIR /app
COPY --from=build --chown=root:root /out /app
# /data: the SQLite store (`--store sqlite:/data/x-mcp-server/store.db`, the default) for a
# single instance; replicas use Redis (`MCP_STORE=redis://…`) instead.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/x-mcp-server.js"]
# MCP_PUBLIC_URL, MCP_SECRET (or MCP_SECRET_FILE), BASECAMP_CLIENT_ID/_SECRET and
# BASECAMP_ALLOWED_ACCOUNTS come from the environment.
CMD ["--http", "--host", "0.0.0.0", "--port", "8080", "--auth", "oauth", "--providers", "basecamp"]
