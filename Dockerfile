# syntax=docker/dockerfile:1
# One image for the three apps; docker-compose.yml picks the app with the command.
FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
# The Prisma CLI only checks that a schema engine file exists for `generate`; it never runs it.
# The merchant SDK too, as the one module the api serves to plain pages (dist/sdk).
RUN PRISMA_SCHEMA_ENGINE_BINARY="$(command -v node)" npx prisma generate \
 && npx tsc -p tsconfig.build.json \
 && npx tsc -p libs/merchant-sdk/tsconfig.json \
 && node scripts/sdk-bundle.mjs \
 && npm prune --omit=dev \
 && node scripts/node-runtime.mjs drop

# The image's Node is this base image's: the Node package pinned for development (package.json's
# optionalDependencies, scripts/node-runtime.mjs) was dropped above. Keep the major the same as that pin.
FROM node:24.21.0-bookworm-slim
ENV NODE_ENV=production
# As scripts/app-runtime.mjs: glibc gives blocks from 128 KiB up back when freed (docs/operations.md).
ENV MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
# The web console's files, served as they are by the api (docs/console.md).
COPY --from=build /app/apps/api/console ./apps/api/console
# The SDK's version, which names the bundle the console loads.
COPY --from=build /app/libs/merchant-sdk/package.json ./libs/merchant-sdk/package.json
USER node
# The api with its Node flags (scripts/app-runtime.mjs). Override per service with the worker's or the
# sandbox's main.js and flags (as docker-compose.yml does), or dist/libs/database/src/migrate.cli.js
CMD ["node", "--enable-source-maps", "--min-semi-space-size=16", "--no-memory-reducer", "dist/apps/api/src/main.js"]
