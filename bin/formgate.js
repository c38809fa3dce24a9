#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ by `npm install` in a checkout (the prepare script) and
// ships compiled in the package (`npm pack` builds first).
import '../dist/src/cli/index.js';
