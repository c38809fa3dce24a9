import { setFlagsFromString } from 'node:v8';

/** V8's own default, which `npm start` and the `formgate` bin leave as it is. */
const DEFAULT_GROWTH_FACTOR = 2;

/**
 * Start-up (parsing ~1,000 modules, compiling every route's schemas) keeps most of what it
 * allocates, and V8 doubles the young generation whenever the objects surviving it outgrow it:
 * by the time the server listens, both semi-spaces have grown to `--max-semi-space-size` (8 MB
 * each, ~14 MB more resident than at their start), and V8 gives them back only when its memory
 * reducer runs, 10–30 s later. Held at its initial size during start-up, an idle server is that
 * much smaller; released once it listens, the first load grows it again as before (same
 * throughput, same peak). Idle RSS 2 s after listening: 89–92 MB held, 103–106 MB not held
 * (docs/performance.md#memory-settings).
 *
 * It must be called before the program's modules are parsed (an ES module graph is parsed whole
 * before any of it runs): by the entry points, ahead of a dynamic import of the rest.
 */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** Back to V8's default growth; harmless when the generation was never held. */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${DEFAULT_GROWTH_FACTOR}`);
}
