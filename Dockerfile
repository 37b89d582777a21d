# Three stages. `dev` (docker-compose.yml) runs `npm start` from the sources with every dependency;
# `build` compiles; the last stage (docker-compose.prod.yml) holds the compiled service and its production
# dependencies only, runs as the unprivileged `node` user, and has no .env or other secret inside
# (.dockerignore keeps them out; secrets come from the environment at run time).
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages npm links: their manifests must be there before the install.
COPY sdk/package.json sdk/
COPY plugin-kit/package.json plugin-kit/
RUN npm ci --no-audit --no-fund

FROM deps AS dev
COPY . .
# npm start keeps its generated SECRETS_KEY and demo state here: docker-compose.yml puts a volume on it.
RUN mkdir -p .data && chown -R node:node .data
USER node
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["npm", "start"]

FROM deps AS build
COPY . .
# The source commit for store_commerce_build_info (there is no .git in the build context).
ARG SOURCE_COMMIT=unknown
RUN SOURCE_COMMIT=$SOURCE_COMMIT npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/sdk/package.json sdk/
COPY --from=build /app/plugin-kit/package.json plugin-kit/
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
USER node
EXPOSE 3000
CMD ["node", "--max-semi-space-size=16", "--heap-growing-percent=50", "dist/api/server.js"]
