// The conformance check as a library: run it from a test, or through the store-commerce-conformance command.
export { runConformance, RULES, type ConformanceOptions, type Outcome, type RuleResult } from './rules.js';
export { main } from './cli.js';
export { startServiceStandIn, type ServiceStandIn } from './service-stand-in.js';
