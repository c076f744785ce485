# One image for every profile; CMS_DEPLOYMENT picks the profile at start.
FROM node:20-bookworm-slim
WORKDIR /app
RUN corepack enable && corepack prepare pnpm@10.34.8 --activate
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml turbo.json tsconfig.base.json ./
COPY packages ./packages
COPY apps ./apps
RUN pnpm install --frozen-lockfile
RUN mkdir -p /app/.data/content && chown -R node /app/.data
ENV HOST=0.0.0.0 PORT=8080 NODE_ENV=production CMS_DATA_DIR=/app/.data
EXPOSE 8080
USER node
CMD ["pnpm", "start"]
