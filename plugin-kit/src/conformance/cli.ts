import { parseArgs } from 'node:util';
import { runConformance, type RuleResult } from './rules.js';
import { startServiceStandIn } from './service-stand-in.js';

const USAGE = `usage: store-commerce-conformance --push-url URL --secret SECRET [--return-url URL] [--connect-url URL]
                                  [--cookie COOKIE] [--header 'NAME: VALUE']... [--service-port PORT]
                                  [--external-id ID] [--timeout-ms N] [--json]

Acts as the service against a plugin under test: sends signed, stale, forged, tampered and duplicate pushes
to its push URL (and forged returns to its connect return URL; --connect-url is where the plugin starts the connect
flow by redirecting to the service's connect page) and reports pass/fail per protocol rule.
The plugin under test must hold SECRET as its webhook_secret and have an order with external_id ID
(default conformance-order); the checks change that order's status and tracking. With --service-port, a stand-in
for the service's POST /api/v1/connect/exchange listens on 127.0.0.1:PORT (configure the plugin's service URL
as http://127.0.0.1:PORT) and a forged connect return must never reach it. --cookie (a Cookie header's value) and
--header sign the check in as a shop admin on the connect start and return pages. Exit code 1 on any failure.`;

const MARK = { pass: 'PASS', fail: 'FAIL', 'not checkable': 'N/C ' } as const;

/** Runs the command with these arguments; returns the exit code (0 all pass, 1 a rule failed, 2 bad usage). */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        'push-url': { type: 'string' },
        secret: { type: 'string' },
        'return-url': { type: 'string' },
        'connect-url': { type: 'string' },
        'external-id': { type: 'string', default: 'conformance-order' },
        'timeout-ms': { type: 'string', default: '8000' },
        'service-port': { type: 'string' },
        cookie: { type: 'string' },
        header: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (err) {
    out(`${(err as Error).message}\n${USAGE}`);
    return 2;
  }
  const timeoutMs = Number(values['timeout-ms']);
  if (values.help || !values['push-url'] || !values.secret || !validUrl(values['push-url']) || !(timeoutMs > 0)) {
    out(USAGE);
    return values.help ? 0 : 2;
  }
  for (const option of ['return-url', 'connect-url'] as const)
    if (values[option] && !validUrl(values[option])) {
      out(`--${option} is not an http(s) URL\n${USAGE}`);
      return 2;
    }
  const auth: Record<string, string> = {};
  for (const h of values.header ?? []) {
    const at = h.indexOf(':');
    if (at < 1) {
      out(`--header ${JSON.stringify(h)} is not 'NAME: VALUE'\n${USAGE}`);
      return 2;
    }
    auth[h.slice(0, at).trim().toLowerCase()] = h.slice(at + 1).trim();
  }
  if (values.cookie) auth.cookie = values.cookie;
  const port = values['service-port'] === undefined ? undefined : Number(values['service-port']);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536)) {
    out(`--service-port is not a port number\n${USAGE}`);
    return 2;
  }
  const standIn = port === undefined ? undefined : await startServiceStandIn(port);
  const results = await runConformance({
    pushUrl: values['push-url'],
    secret: values.secret,
    externalId: values['external-id'],
    timeoutMs,
    ...(values['return-url'] ? { returnUrl: values['return-url'] } : {}),
    ...(values['connect-url'] ? { connectUrl: values['connect-url'] } : {}),
    ...(standIn ? { standIn } : {}),
    ...(Object.keys(auth).length ? { auth } : {}),
  }).finally(() => standIn?.close());
  const count = (o: RuleResult['outcome']) => results.filter((r) => r.outcome === o).length;
  const summary = { passed: count('pass'), failed: count('fail'), not_checkable: count('not checkable') };
  if (values.json)
    out(
      JSON.stringify(
        {
          push_url: values['push-url'],
          return_url: values['return-url'] ?? null,
          connect_url: values['connect-url'] ?? null,
          service_stand_in: standIn?.url ?? null,
          ...summary,
          results,
        },
        null,
        2,
      ),
    );
  else {
    const width = Math.max(...results.map((r) => r.rule.length));
    for (const r of results)
      out(`${MARK[r.outcome]}  ${r.rule.padEnd(width)}  ${r.title}${r.outcome === 'pass' ? '' : `\n      ${r.reason}`}`);
    out(`${summary.passed} passed, ${summary.failed} failed, ${summary.not_checkable} not checkable remotely`);
  }
  return summary.failed ? 1 : 0;
}

const validUrl = (s: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(s).protocol);
  } catch {
    return false;
  }
};
