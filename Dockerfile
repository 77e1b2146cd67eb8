# The console image: the same launcher as `npm start` (migrate, seed an empty database, serve the console,
# run the local operator), pointed at the PostgreSQL in DATABASE_URL. Build: docker build -t rebound-console .
# NODE_ENV=production: no demo users; the first cluster admin comes from REBOUND_ADMIN_EMAIL +
# REBOUND_ADMIN_PASSWORD, or from the one-time setup link printed in the log at start (docs/security.md).

FROM node:20-bookworm-slim AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
# `npm install` with the lockfile, not `npm ci`: the lockfile may lack other platforms' builds of per-platform
# optional dependencies (see .ci/run), which `npm ci` refuses; `npm install` installs the locked versions.
# Install scripts run only for the packages package.json's allowScripts names, whichever npm the base image
# ships (npm 10 would otherwise run them all, Prisma's engine download included).
# `npm ls` fails the step on an incomplete install (npm 10 can end "Exit handler never called!" with status 0).
RUN npm install --no-audit --no-fund --ignore-scripts \
 && npm rebuild $(node -p "Object.keys(require('./package.json').allowScripts).join(' ')") \
 && npm ls --depth=0 >/dev/null
COPY . .
# Builds what `npm start` would otherwise build at every container start (Prisma client, console, demo
# trainer, the operator's bundle dist/operator, which deploy/operator runs, and the agent's, dist/agent), then drops what the runtime
# does not use: dev dependencies (scripts/start.ts runs on tsx, a dependency), the Prisma CLI and Playwright
# (kept by the prune as optional peers of @prisma/client and next; the client is generated here) and Next's
# build cache. The embedded PostgreSQL binaries stay: the image
# uses DATABASE_URL, but the launcher imports embedded-postgres, which loads them on import.
# package-lock.json is put back after the prune: start.ts rebuilds the console when its source hash, which
# covers the lockfile, changes. .data (REBOUND_DATA_DIR: the local back end's pods and logs, operator.json)
# must exist even though no embedded PostgreSQL creates it.
RUN npm run build \
 && cp package-lock.json /tmp/package-lock.json \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && cp /tmp/package-lock.json package-lock.json \
 && rm -rf .next/cache node_modules/.cache node_modules/prisma node_modules/@prisma/dev \
      node_modules/@prisma/studio-core node_modules/@electric-sql node_modules/playwright node_modules/playwright-core \
 && mkdir -p .data

FROM node:20-bookworm-slim
WORKDIR /app
# REBOUND_AGENT_BUNDLE: bin/rebound-agent.mjs runs the agent's bundle (scripts/lib/agent-build.ts), in
# training pods and under the local back end alike, not its sources through tsx.
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0 \
    REBOUND_AGENT_BUNDLE=/app/dist/agent/main.mjs
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD node -e "fetch('http://127.0.0.1:3000/api/healthz').then(r => process.exit(r.ok ? 0 : 1)).catch(() => process.exit(1))"
# node itself is PID 1 (no npm/npx wrapper), so `docker stop`'s SIGTERM reaches start.ts's handler directly.
CMD ["node", "--import", "tsx", "scripts/start.ts"]
