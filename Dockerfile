# The service as `npm start` runs it, for users with Docker (see docker-compose.yml); built, so the same
# image also runs `node dist/api/server.js` and `node dist/temporal/worker-main.js` (docker-compose.prod.yml).
FROM node:24-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
# The workspace packages npm links (plugin-kit: for plugin authors, not run by the service).
COPY plugin-kit/package.json plugin-kit/
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build
ENV HOST=0.0.0.0 PORT=3000
EXPOSE 3000
CMD ["npm", "start"]
