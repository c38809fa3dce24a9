import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { typescriptEntry } from '../../tsx.js';

/**
 * For a test that runs a bench script in a process of its own, which starts servers and loads
 * them: on a slow 2-core machine one such process takes seconds, and more while the other test
 * files share the cores. The default 30 s would leave such a test little margin.
 */
export const PROCESS_TEST_TIMEOUT_MS = 90_000;

/**
 * How long a process may take to exit unless the test says otherwise. One that takes longer is
 * stuck: the test then fails on its output and exit code rather than on the test's timeout.
 */
const PROCESS_LIMIT_MS = 30_000;

/** Node's arguments that run one of the bench's scripts (`run.ts`, `pair.ts`…) as `npm run bench…` runs it. */
export const benchScript = (name: string) => typescriptEntry(new URL(`../../${name}`, import.meta.url));

/** The shell's environment without what Vite injects into the test process (BASE_URL, MODE…). */
function operatorEnv(): NodeJS.ProcessEnv {
  const { BASE_URL, MODE, DEV, PROD, SSR, ...rest } = process.env;
  return rest;
}

export interface FinishedProcess {
  code: number | string;
  stdout: string;
  stderr: string;
}

/** Where a process runs, how long it may (PROCESS_LIMIT_MS unless given), and what it reads. */
export interface RunOptions {
  cwd?: string;
  limitMs?: number;
  /** Written to its stdin, which is then closed; without it, stdin is /dev/null. */
  input?: string;
}

/** Runs Node with `args` until it exits; one that runs past `limitMs` is killed, and its code reads SIGKILL. */
export function runToExit(args: string[], env: Record<string, string>, options: RunOptions = {}): Promise<FinishedProcess> {
  return startToExit(args, env, options).finished;
}

/** runToExit's process while it runs, for a test that acts on it meanwhile (a signal, a look at its children). */
export function startToExit(args: string[], env: Record<string, string>, options: RunOptions = {}): { child: ChildProcess; finished: Promise<FinishedProcess> } {
  const child = spawn(process.execPath, args, { env: { ...operatorEnv(), PORT: '0', ...env }, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'], cwd: options.cwd });
  if (options.input !== undefined) {
    // A process that exits without reading it all breaks the pipe: its exit code and output tell
    // the test what happened, where an unhandled EPIPE would fail the whole file instead.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.input);
  }
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.limitMs ?? PROCESS_LIMIT_MS);
  // 'close', not 'exit': the output is whole once every process holding its pipes is gone.
  const finished = once(child, 'close').then(([code, signal]: Array<number | string | null>) => {
    clearTimeout(timer);
    return { code: code ?? signal ?? 'unknown', stdout, stderr };
  });
  return { child, finished };
}
