// The store-commerce-conformance command: parse arguments, run the rules, exit with their verdict.
import { main } from './cli.js';

process.exitCode = await main(process.argv.slice(2));
