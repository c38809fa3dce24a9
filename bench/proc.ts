import { readFileSync, readdirSync } from 'node:fs';

// Linux's /proc as the bench reads it: its CPU and memory figures, the reaper's search for a run's
// processes, and the tests that watch them end. (The bench is Linux-only for these.)

/** What the bench reads of a process's /proc/<pid>/stat, or of one of its threads'. */
export interface ProcStat {
  command: string;
  /** R, S, D …, or Z: a zombie, ended but not yet reaped by its parent. */
  state: string;
  ppid: number;
  /** User + system CPU used so far (the fields count clock ticks, USER_HZ: 100 a second on Linux). */
  cpuSeconds: number;
}

/** Undefined once the process (or thread) is gone. */
export function readProcStat(pid: number, thread?: number): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may hold spaces and parentheses itself: the fields are read
  // after the last one. State and parent are the 3rd and 4th fields, utime and stime the 14th and 15th.
  const nameEnd = stat.lastIndexOf(')');
  const fields = stat.slice(nameEnd + 2).split(' ');
  return {
    command: stat.slice(stat.indexOf('(') + 1, nameEnd),
    state: fields[0]!,
    ppid: Number(fields[1]),
    cpuSeconds: (Number(fields[11]) + Number(fields[12])) / 100,
  };
}

/** CPU seconds a process (or one of its threads) has used so far, user + system; throws once it is gone (a zombie still reads). */
export function cpuSeconds(pid: number, thread?: number): number {
  const stat = readProcStat(pid, thread);
  if (!stat) throw new Error(`process ${pid}${thread === undefined ? '' : ` thread ${thread}`} is gone`);
  return stat.cpuSeconds;
}

/** The PIDs of every process on the machine. */
export function allPids(): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map(Number);
}

/** Neither gone nor a zombie (an orphan's zombie waits for an init that may never reap it: this machine's does not). */
export function isRunning(pid: number): boolean {
  const state = readProcStat(pid)?.state;
  return state !== undefined && state !== 'Z';
}

/** A process's environment as NAME=value strings; empty if it is gone or not ours to read. */
export function environOf(pid: number): string[] {
  return nulSeparated(pid, 'environ');
}

/**
 * A process's command line, one argument an entry; empty if it is gone (a zombie or a kernel thread
 * has none either). A process that retitled itself, as PostgreSQL's do, shows its title followed by
 * the NULs that pad it to its argv's old length: empty entries here.
 */
export function commandLineOf(pid: number): string[] {
  return nulSeparated(pid, 'cmdline');
}

/** Each entry of these files ends with a NUL, the last one too. */
function nulSeparated(pid: number, file: 'environ' | 'cmdline'): string[] {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return [];
  }
  return text === '' ? [] : text.replace(/\0$/, '').split('\0');
}

/** Peak (VmHWM) and current (VmRSS) resident memory of a process, in MB. */
export function memoryOf(pid: number): { peakMb: number; rssMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { peakMb: Math.round(kb('VmHWM') / 1024), rssMb: Math.round(kb('VmRSS') / 1024) };
}
