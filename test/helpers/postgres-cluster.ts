import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, chownSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL cluster of the suite's own: the machine's PostgreSQL binaries, a data folder in
 * memory (/dev/shm where it exists), and `fsync=off`. A test database is created and dropped per
 * test file; on a cluster that flushes, each DROP DATABASE waits for a checkpoint (~0.9 s on a
 * 2-core machine) and each CREATE from a template for its WAL; here both take tens of ms. It is
 * still a real server: the same SQL, locks, NOTIFY and backends to terminate. Nothing it holds
 * outlives the run.
 */
export interface SuiteCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  stop(): void;
}

/** The server binaries' folder, or undefined when this machine has no PostgreSQL server installed. */
export function findPostgresBinaries(): string | undefined {
  const fromConfig = tryRun('pg_config', ['--bindir']);
  if (fromConfig && existsSync(join(fromConfig, 'initdb'))) return fromConfig;
  const debian = '/usr/lib/postgresql';
  if (!existsSync(debian)) return undefined;
  const versions = readdirSync(debian)
    .filter((v) => existsSync(join(debian, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(debian, versions[0], 'bin') : undefined;
}

const CLUSTER_PREFIX = 'formgate-test-pg-';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Stops and removes the clusters of runs that were killed before their teardown (their folder
 * names the run's process, now gone): each holds a server and its memory until the machine
 * restarts otherwise.
 */
function removeAbandonedClusters(base: string, stopCluster: (data: string) => void): void {
  for (const name of readdirSync(base)) {
    const pid = Number(name.startsWith(CLUSTER_PREFIX) ? name.slice(CLUSTER_PREFIX.length).split('-')[0] : NaN);
    if (!Number.isInteger(pid) || isAlive(pid)) continue;
    const root = join(base, name);
    try {
      if (existsSync(join(root, 'data', 'postmaster.pid'))) stopCluster(join(root, 'data'));
    } catch {
      // Already stopped, or not ours to stop: the folder goes either way.
    }
    rmSync(root, { recursive: true, force: true });
  }
}

export function startSuiteCluster(bin: string, port: number): SuiteCluster {
  const base = existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
  const root = join(base, `${CLUSTER_PREFIX}${process.pid}-${port}`);
  const data = join(root, 'data');
  mkdirSync(root, { recursive: true });
  // initdb and postgres refuse to run as root; the machine's postgres user runs them then.
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(root, uid, gid);
  }
  const run = (command: string, args: string[]) => {
    const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', join(bin, command), ...args]] : [join(bin, command), args];
    const result = spawnSync(file as string, argv as string[], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout || result.error?.message}`);
  };
  removeAbandonedClusters(base, (abandoned) => run('pg_ctl', ['-D', abandoned, '-m', 'immediate', '-w', 'stop']));
  run('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--locale=C.UTF-8']);
  const options = [
    `-p ${port}`,
    `-k ${root}`,
    '-c listen_addresses=127.0.0.1',
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=400',
    '-c shared_buffers=64MB',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', options, '-l', join(root, 'log'), '-w', '-t', '60', 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    stop: () => {
      // Immediate: nothing here is worth a shutdown checkpoint.
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        if (statSync(root, { throwIfNoEntry: false })) rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

function tryRun(command: string, args: string[]): string | undefined {
  const result = spawnSync(command, args, { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : undefined;
}
