# The service's image (docs/operating.md, "The container"). Two stages: the build compiles the server,
# the console and the migration step with every dependency; the image keeps the build and the
# production dependencies only, runs as the unprivileged `node` user, and writes nothing outside its
# one data volume, so it runs with a read-only root file system (compose.yaml sets `read_only: true`).
# Not built on the machine this repository is developed on (it cannot pull images): the suite checks
# this file's settings (test/unit/container.test.ts) and runs the entrypoint outside a container.

FROM node:24-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 builds from source where no prebuilt binary fits.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
COPY . .
# npm ci's prepare step generates the parsed contract and the reference, and builds the server (dist/), the client and the console.
RUN npm ci \
  && npx esbuild scripts/migrate.ts --bundle --platform=node --format=esm --packages=external --outfile=dist/scripts/migrate.js \
  && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/data/payments.sqlite \
    MAIL_DIR=/data/mail
WORKDIR /app
COPY --from=build /app/package.json /app/openapi.yaml ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/generated ./generated
COPY --from=build /app/console/dist ./console/dist
COPY docker/entrypoint.sh /usr/local/bin/payment-collection
RUN mkdir /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/payment-collection"]
