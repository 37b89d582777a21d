// `npm run build`, second step: bundle the compiled workflows once, so production workers start fast.
// Two bundles: the plain one, and one with Temporal's OpenTelemetry workflow interceptors that a worker
// uses only when tracing is on (OTEL_EXPORTER_OTLP_ENDPOINT set), so the default path runs none of it.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowTracingModule } from '../temporal/tracing.js';

const root = new URL('../', import.meta.url);
const workflowsPath = fileURLToPath(new URL('dist/workflows/index.js', root));
for (const [file, workflowInterceptorModules] of [
  ['dist/workflow-bundle.js', []],
  ['dist/workflow-bundle-traced.js', [workflowTracingModule()]],
] as const) {
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    ...(workflowInterceptorModules.length ? { workflowInterceptorModules: [...workflowInterceptorModules] } : {}),
  });
  writeFileSync(new URL(file, root), code);
  console.log(`[build] ${file} (${(code.length / 1024).toFixed(0)} KiB)`);
}
