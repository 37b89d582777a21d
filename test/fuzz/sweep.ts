// The systematic half of the request fuzz: each hostile value in each place, one at a time.
import { BAD_IDS, deeplyNested, HUGE } from './arbitraries.js';
import { wellFormed } from './generators.js';
import {
  formTemplate,
  jsonTemplate,
  knownQuery,
  pathsOf,
  poolFor,
  validKinds,
  type FuzzContext,
  type RequestSpec,
  type Route,
} from './model.js';

/** The values the systematic sweep puts in every field, query parameter and path parameter, one at a time. */
export const SWEEP_VALUES: unknown[] = [
  'a\u0000b',
  '\ud800x',
  'x\udfff',
  '\u202eRTL\u202c',
  '𝕏👩‍👩‍👧',
  '',
  ' ',
  HUGE,
  deeplyNested(500),
  null,
  12345,
  -1,
  1e308,
  0.00001,
  true,
  [],
  {},
  ['a', 1, null],
  { extra: 'field' },
];

/**
 * The systematic sweep: every field of every valid body, every known query parameter and every path
 * parameter replaced in turn by each hostile value, with a valid key, so each handler meets each value.
 */
export function sweepRequests(routes: Route[], ctx: FuzzContext): RequestSpec[] {
  const specs: RequestSpec[] = [];
  const encode = (v: unknown) =>
    encodeURIComponent(wellFormed(typeof v === 'string' ? v.slice(0, 3000) : (JSON.stringify(v) ?? '').slice(0, 3000)));
  for (const route of routes.filter((r) => !r.wrongMethod && r.method !== 'HEAD')) {
    const kind = validKinds(route.access)[0]!;
    const base = (url: string, payload: string | undefined, contentType: string | undefined, note: string): RequestSpec => ({
      route: `${route.method} ${route.path}`,
      method: route.method,
      url,
      api: route.api,
      auth: { kind, form: 'bearer' },
      headers: {
        ...(contentType && payload !== undefined ? { 'content-type': contentType } : {}),
        ...(ctx.dashboard && (route.path.startsWith('/dashboard') || route.path.startsWith('/connect/'))
          ? { cookie: ctx.dashboard.sessionCookie }
          : {}),
      },
      ...(payload !== undefined ? { payload } : {}),
      bodyNote: note,
    });
    const names = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
    const validPath = () => route.path.replace(/:(\w+)/g, (_, n: string) => poolFor(n, route.path, ctx)[0]!);
    const template = route.api
      ? jsonTemplate(route, ctx, 0)
      : ['POST', 'PUT', 'PATCH'].includes(route.method)
        ? formTemplate(route, ctx)
        : null;
    const body =
      template === null
        ? undefined
        : route.api
          ? JSON.stringify(template)
          : new URLSearchParams(template as Record<string, string>).toString();
    const contentType = route.api ? 'application/json' : 'application/x-www-form-urlencoded';
    // Path parameters.
    for (const name of names) {
      for (const value of [...BAD_IDS.slice(0, 12), encode('a\u0000b'), encode('\u202e'), encode('𝕏')]) {
        const path = route.path.replace(/:(\w+)/g, (_, n: string) => (n === name ? value : poolFor(n, route.path, ctx)[0]!));
        specs.push(base(path, body, contentType, `param ${name}=${value.slice(0, 40)}`));
      }
    }
    // Query parameters.
    for (const name of Object.keys(knownQuery(route, ctx))) {
      for (const value of SWEEP_VALUES)
        specs.push(
          base(`${validPath()}?${name}=${encode(value)}`, body, contentType, `query ${name}=${String(JSON.stringify(value)).slice(0, 40)}`),
        );
    }
    if (template === null) continue;
    // Body fields (JSON: every path of the valid body; forms: every field).
    if (route.api) {
      for (const path of pathsOf(template).slice(1)) {
        for (const value of SWEEP_VALUES) {
          const copy = structuredClone(template) as Record<string, unknown>;
          const parent = path.slice(0, -1).reduce<any>((o, k) => o[k], copy);
          parent[path.at(-1)!] = structuredClone(value);
          specs.push(
            base(validPath(), JSON.stringify(copy), contentType, `body ${path.join('.')}=${String(JSON.stringify(value)).slice(0, 40)}`),
          );
        }
      }
    } else {
      for (const field of Object.keys(template)) {
        for (const value of SWEEP_VALUES.filter((v): v is string => typeof v === 'string')) {
          const form = new URLSearchParams({ ...(template as Record<string, string>), [field]: value });
          specs.push(base(validPath(), form.toString(), contentType, `form ${field}=${JSON.stringify(value).slice(0, 40)}`));
        }
        specs.push(
          base(
            validPath(),
            new URLSearchParams({ ...(template as Record<string, string>), [field]: 'a\u0000b' }).toString(),
            contentType,
            `form ${field}=NUL`,
          ),
        );
      }
    }
  }
  return specs;
}
