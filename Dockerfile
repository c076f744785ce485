# syntax=docker/dockerfile:1
# The production image of every service (gateway, namespace services, the
# migration job): docker-compose.yml picks the role with the environment
# (CMS_DEPLOYMENT, CMS_NAMESPACES) or the command (`node dist/main.js migrate`).
#
# Stage 1 builds: the workspace with its development dependencies, every
# package compiled to dist/ (scripts/build-dist.mjs), then `pnpm deploy --prod`
# of the command line (which depends on the gateway and, through it, on every
# package) into /out with production dependencies only.
FROM node:20-bookworm-slim AS build
ENV PNPM_HOME=/pnpm PATH=/pnpm:$PATH COREPACK_ENABLE_DOWNLOAD_PROMPT=0 CI=true
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate
WORKDIR /src
# The dependencies first (a layer that changes only with the lockfile).
COPY pnpm-lock.yaml pnpm-workspace.yaml ./
RUN --mount=type=cache,id=pnpm,target=/pnpm/store pnpm fetch --frozen-lockfile
COPY . .
RUN --mount=type=cache,id=pnpm,target=/pnpm/store \
    pnpm install --frozen-lockfile --offline --filter "@cms/cli..." --filter cms-service
RUN node scripts/build-dist.mjs --exports \
 && pnpm --filter @cms/cli deploy --prod --legacy /out \
 && rm -rf /out/src /out/test /out/tsconfig.json

# Stage 2 runs: Node and the deployed tree, no package manager, not root.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 CMS_DATA_DIR=/app/.data CMS_CONTENT_DIR=/app/.data/content
WORKDIR /app
COPY --from=build /out /app
# The only place the service writes: its data and content directories (a volume
# mounted there starts with this owner).
RUN mkdir -p /app/.data/content && chown -R node:node /app/.data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=6 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "node_modules/@cms/gateway/dist/main.js"]
