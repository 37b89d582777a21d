import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';

export interface MetricsPage {
  /** The port it listens on (METRICS_PORT, or the one the system chose for port 0). */
  port: number;
  /** Its address as a scraper on this machine would use it. */
  url: string;
  close(): Promise<void>;
}

export interface MetricsPageOptions {
  /** METRICS_HOST: 127.0.0.1 unless a container network must reach the page. */
  host?: string;
  port: number;
  registry: Registry;
  /**
   * Other Prometheus pages on loopback whose text this page appends (the Temporal SDK's own exporter),
   * so one scrape shows everything the process knows.
   */
  appendFrom?: string[];
}

/**
 * Serves `GET /metrics` on its own listener (127.0.0.1 unless METRICS_HOST says otherwise; never the API's
 * listener): the registry's text, then each appended page's. A page that does not answer costs a comment
 * line, never the whole scrape.
 */
export async function startMetricsPage({ host = '127.0.0.1', port, registry, appendFrom = [] }: MetricsPageOptions): Promise<MetricsPage> {
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found: the metrics are at /metrics\n');
      return;
    }
    void render(registry, appendFrom).then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: Error) => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`metrics failed: ${err.message}\n`),
    );
  });
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(port, host, () => listening());
  });
  const bound = (server.address() as { port: number }).port;
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return {
    port: bound,
    url: `http://${shown}:${bound}/metrics`,
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

async function render(registry: Registry, appendFrom: string[]): Promise<string> {
  const parts = await Promise.all([registry.metrics(), ...appendFrom.map(fetchPage)]);
  return parts.map((p) => (p.endsWith('\n') ? p : `${p}\n`)).join('');
}

async function fetchPage(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    if (!response.ok) return `# ${url} answered ${response.status}\n`;
    return await response.text();
  } catch (err) {
    return `# ${url} did not answer: ${(err as Error).message}\n`;
  }
}
