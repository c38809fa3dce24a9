// The bench is TypeScript run through tsx, never compiled; the processes and threads it starts of
// its own (the references, the reaper, the sinks' thread) run the same way. The server under test
// is not among them: it is the product's build (dist/src/server.js), started as operators start it.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * tsx's loader by absolute URL, so that a child started in any working directory finds it.
 * Resolved with require's resolver: the bench's tests import this file under Vitest, which has no
 * `import.meta.resolve`.
 */
const TSX_LOADER = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/** Node's arguments that run one of the bench's TypeScript files as a process of its own. */
export function typescriptEntry(file: URL): string[] {
  return ['--import', TSX_LOADER, fileURLToPath(file)];
}

/**
 * One of the bench's TypeScript files on a worker thread. Node 20 does not hand a worker the
 * loader the process was started with (`--import` is not run again there, and a worker's
 * `execArgv` does not take it), so the thread registers tsx itself before it imports the file.
 * tsx's ESM API is found with `import.meta.resolve` (require's resolver finds its CommonJS build),
 * which a bench process, run by Node itself, has.
 */
export function typescriptWorker(file: URL): Worker {
  const api = import.meta.resolve('tsx/esm/api');
  const source = `import(${JSON.stringify(api)}).then(({ register }) => { register(); return import(${JSON.stringify(file.href)}); })`;
  return new Worker(source, { eval: true });
}
