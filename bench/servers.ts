// The processes a scenario loads: Formgate's server under test, from the product's build and with
// `npm start`'s Node flags, and the references it is measured against. Each is marked for the
// reaper (reaper.ts) before its first instruction, so a killed run takes them along.
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { markedEnv } from './reaper.js';
import { atRoot } from './root.js';
import { typescriptEntry } from './tsx.js';

/**
 * Node flags of the server under test, read from `npm start`'s script so the bench measures the
 * server as operators start it (e2e/process/startup.test.ts keeps the `formgate` bin's the same).
 */
const SERVER_NODE_FLAGS = startScriptNodeFlags();

function startScriptNodeFlags(): string[] {
  const start = (JSON.parse(readFileSync(atRoot('package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const flags = /\bnode ((?:--\S+ )*)dist\/src\/server\.js/.exec(start)?.[1];
  if (flags === undefined) throw new Error(`package.json's start script does not run dist/src/server.js: ${start}`);
  return flags.split(' ').filter(Boolean);
}

export interface Child {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Formgate's server under test on `databaseUrl`, run as `npm start` runs it (its Node flags
 * included), with the submit rate limit off: the load generator is one client. `serverScript`
 * is another build's server when bench/pair.ts compares two builds.
 */
export function startFormgate(databaseUrl: string, env: Record<string, string> = {}, serverScript = atRoot('dist/src/server.js')): Promise<Child> {
  return startChild([...SERVER_NODE_FLAGS, serverScript], { DATABASE_URL: databaseUrl, SUBMIT_RATE_LIMIT_PER_MINUTE: '0', ...env });
}

/**
 * One of the references in bench/reference-server.ts (what each measures: that file's header).
 * The two that store rows take their database as an argument: without DATABASE_URL the reference
 * server would fall back to an in-memory SQLite database and measure that instead.
 * It runs through tsx like the rest of the bench: the loader costs its start-up, not its requests.
 */
export function startReference(kind: 'bare'): Promise<Child>;
export function startReference(kind: 'insert' | 'group', databaseUrl: string): Promise<Child>;
export function startReference(kind: 'bare' | 'insert' | 'group', databaseUrl?: string): Promise<Child> {
  const env = { REFERENCE: kind, ...(databaseUrl === undefined ? {} : { DATABASE_URL: databaseUrl }) };
  return startChild(typescriptEntry(new URL('./reference-server.ts', import.meta.url)), env);
}

/** Starts a Node process (its arguments, the script last) and waits for it to print its listening URL. */
async function startChild(nodeArgs: string[], env: Record<string, string>): Promise<Child> {
  const script = nodeArgs.at(-1)!;
  const child = spawn(process.execPath, nodeArgs, {
    env: markedEnv({ ...process.env, PORT: '0', LOG_LEVEL: 'warn', ...env }),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  const url = await new Promise<string>((resolveUrl, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[\d.]+:\d+)/i.exec(output);
      if (match) resolveUrl(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}: ${output}`)));
  });
  return {
    url,
    process: child,
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
