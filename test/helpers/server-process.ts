import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { expect } from 'vitest';

/** The shell's environment without what Vite injects into the test process (BASE_URL, MODE…). */
export function operatorEnv(): NodeJS.ProcessEnv {
  const { BASE_URL, MODE, DEV, PROD, SSR, ...rest } = process.env;
  return rest;
}

/**
 * For a test that runs Formgate's processes as operators do (CLI commands, the server starting
 * or failing to), one Node process each: ~1 s a command on a slow 2-core machine, two to three
 * while the other suites share its cores, and such a test runs up to ten, some of them at once.
 * The default 30 s left one of them 3 s of margin on such a machine.
 */
export const PROCESS_TEST_TIMEOUT_MS = 90_000;

/**
 * How long a process may take to print its listening URL (spawnServer) or to exit (the rest).
 * One that takes longer is stuck: where the test allows more (PROCESS_TEST_TIMEOUT_MS),
 * it fails on the process's own output and exit instead of on its timeout.
 */
const PROCESS_LIMIT_MS = 30_000;

/** The server's entry point as `npm start` runs it, compiled by `npm run build`. */
export const SERVER_ENTRY = 'dist/src/server.js';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal name) once the process has ended. */
  exited: Promise<number | string>;
  output(): string;
}

/**
 * Runs the compiled server (`npm run build` output) as an operator would, in its own process, and
 * resolves once it printed its listening URL.
 */
export async function spawnServer(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, [resolve(SERVER_ENTRY)], {
    env: { ...operatorEnv(), PORT: '0', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = once(child, 'exit').then(([code, signal]) => (code ?? signal) as number | string);
  const url = await new Promise<string>((resolveUrl, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), PROCESS_LIMIT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolveUrl(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before listening:\n${output}`));
    });
  });
  return { url, child, exited, output: () => output };
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

/**
 * Runs a compiled entry point (the server's, the CLI's, a bench script's) until it exits. One that
 * runs past `limitMs` is killed, and its code reads SIGKILL.
 */
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

/** The server run until it exits: a start-up that must fail, with its one line on stderr. */
export function runServer(env: Record<string, string>): Promise<FinishedProcess> {
  return runToExit([SERVER_ENTRY], env);
}

/** The CLI as an operator runs it: the package binary (compiled by `npm install`/`npm test`). */
export function runCli(args: string[], env: Record<string, string>): Promise<FinishedProcess> {
  return runToExit(['bin/formgate.js', ...args], env);
}

/** A CLI command that must succeed (exit 0, nothing on stderr): its `--json` output, parsed. */
export async function runCliJson<T = any>(args: string[], env: Record<string, string>): Promise<T> {
  const result = await runCli([...args, '--json'], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as T;
}
