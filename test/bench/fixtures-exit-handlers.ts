// A harness in miniature for exit-handlers.test.ts: exit handlers installed, one tracked child, a slow cleanup.
import { spawn } from 'node:child_process';
import { installExitHandlers, onCleanup, trackChild } from '../../bench/lib/cleanup.js';

installExitHandlers((line) => console.log(line));
const child = spawn('sleep', ['60'], { stdio: 'ignore' });
trackChild(child);
onCleanup('slow task', () => new Promise((resolve) => setTimeout(resolve, 2_000)));
console.log(`child ${child.pid}`);
setInterval(() => undefined, 1_000);
