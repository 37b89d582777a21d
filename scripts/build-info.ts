// `npm run build`, last step: records the source commit beside the compiled code (an image has no .git),
// from SOURCE_COMMIT when the builder passes it (docker build --build-arg SOURCE_COMMIT=…), else from git.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { COMMIT_FILE, gitCommit } from '../config/build-info.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const commit = process.env.SOURCE_COMMIT?.trim() || gitCommit(root) || 'unknown';
writeFileSync(new URL(COMMIT_FILE, new URL('../', import.meta.url)), `${commit}\n`);
console.log(`[build] ${COMMIT_FILE} (${commit})`);
