# syntax=docker/dockerfile:1.7
# One image for every Context Hub service. The container command selects the
# service — `node services/<name>/dist/main.js` (gateway, store, embedder,
# summarizer, reranker) — and the Helm chart sets it; the store's migrations
# run as `node services/store/dist/main.js migrate`, the smoke test as
# `node apps/cli/dist/main.js smoke --url …`.
#
#   docker build -t context-hub:dev .
#
# Needs a container engine (Docker/BuildKit, Podman, Buildah, Kaniko): see
# docs/deploy.md. The image runs as UID/GID 10001, on a read-only root
# filesystem in the chart.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: every dependency, then compile what the image ships -------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY . .
# No install scripts: generated gRPC code is committed, so the buf binary's
# download is not needed, and nothing the services load builds native code.
RUN npm ci --ignore-scripts
# The CLI references every service and shared package, so this compiles all
# that ships (and none of the test or chart-test workspaces).
RUN npx tsc -b apps/cli

# --- deps: production dependencies of what ships, nothing else --------------
FROM build AS deps
RUN rm -rf node_modules && npm ci --omit=dev --ignore-scripts --workspace apps/cli
# Collect into /out exactly what the runtime needs: node_modules and, for every
# workspace package node_modules links to, its package.json and dist/.
RUN node --input-type=module <<'SCRIPT'
import { cpSync, existsSync, readdirSync, realpathSync } from "node:fs";
import { join, relative } from "node:path";
cpSync("package.json", "/out/package.json");
cpSync("node_modules", "/out/node_modules", { recursive: true, verbatimSymlinks: true });
for (const name of readdirSync("node_modules/@context-hub")) {
  const workspace = relative("/app", realpathSync(join("node_modules/@context-hub", name)));
  cpSync(join(workspace, "package.json"), join("/out", workspace, "package.json"));
  if (existsSync(join(workspace, "dist"))) cpSync(join(workspace, "dist"), join("/out", workspace, "dist"), { recursive: true });
}
SCRIPT

# --- runtime -----------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOME=/tmp
WORKDIR /app
COPY --from=deps /out/ ./
# Pre-warm the word-vector cache the built-in embedder and reranker read, so a
# pod starts without rebuilding it from the vectors' JSON. The chart copies it
# into the pod's writable cache volume (EMBEDDER_CACHE_DIR, RERANKER_CACHE_DIR).
RUN node --input-type=module -e "import { loadWordVectors } from '@context-hub/text'; await loadWordVectors('/app/.cache/context-hub');" \
 && chmod -R a+rX /app
# A numeric user, so Kubernetes can verify runAsNonRoot.
USER 10001:10001
EXPOSE 8080 50051 50052 50053 50054 9091 9092 9093 9094
CMD ["node", "services/gateway/dist/main.js"]
