#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50 --v8-pool-size=2
// Thin launcher: the CLI is compiled to dist/ by `npm install` in a checkout (the prepare script) and
// ships compiled in the package (`npm pack` builds first). The young generation is held before the
// CLI's modules are parsed (dist/src/platform/startup/young-generation.js): `formgate serve` releases it once
// listening, every other command as it starts.
import { holdYoungGeneration } from '../dist/src/platform/startup/young-generation.js';

holdYoungGeneration();
await import('../dist/src/frontends/cli/index.js');
