#!/usr/bin/env node
// The store-commerce-conformance command: the built code in dist/ (npm pack builds it; in the repository,
// npm run plugin-kit:build).
import '../dist/conformance/bin.js';
