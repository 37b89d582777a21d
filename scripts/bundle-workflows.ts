// `npm run build`, second step: bundle the compiled workflows once, so production workers start fast.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode } from '@temporalio/worker';

const root = new URL('../', import.meta.url);
const { code } = await bundleWorkflowCode({ workflowsPath: fileURLToPath(new URL('dist/workflows/index.js', root)) });
writeFileSync(new URL('dist/workflow-bundle.js', root), code);
console.log(`[build] dist/workflow-bundle.js (${(code.length / 1024).toFixed(0)} KiB)`);
