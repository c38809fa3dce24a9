#!/usr/bin/env -S node --max-semi-space-size=8 --heap-growing-percent=50
// Thin launcher: the CLI is compiled to dist/ by `npm install` in a checkout (the prepare script) and
// ships compiled in the package (`npm pack` builds first).
import '../dist/src/cli/index.js';
