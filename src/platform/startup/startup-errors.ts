import { resolve } from 'node:path';
import { describeDatabase } from './describe.js';

/**
 * A reason the server cannot run, in one line that says what is wrong and what to do. Printed
 * without a stack trace; the process exits non-zero.
 */
export class StartupError extends Error {}

type ErrorWithCode = Error & { code?: string; errno?: number };

const SQLITE_OPEN_CODES = new Set(['SQLITE_CANTOPEN', 'SQLITE_READONLY', 'SQLITE_PERM', 'SQLITE_IOERR']);
const FS_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOTDIR', 'EEXIST', 'ENOENT', 'EISDIR', 'ENOSPC']);
const PG_UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

/** Explains a failure to open or migrate the database; undefined when it is none of the known kinds. */
export function databaseStartupError(err: unknown, databaseUrl: string): StartupError | undefined {
  const e = err as ErrorWithCode;
  const code = typeof e?.code === 'string' ? e.code : undefined;
  if (databaseUrl.startsWith('sqlite:')) {
    const path = resolve(databaseUrl.slice('sqlite:'.length));
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return new StartupError(
        `${path} is not a usable SQLite database (${code}): point DATABASE_URL at a Formgate database, or move the file away to start with a new one.`,
      );
    }
    if ((code && (SQLITE_OPEN_CODES.has(code) || FS_CODES.has(code))) || /unable to open/i.test(e?.message ?? '')) {
      return new StartupError(
        `Cannot create or write the SQLite database ${path} (${code ?? e.message}): make sure its folder exists or can be created and is writable by this user, or set DATABASE_URL=sqlite:<another path>.`,
      );
    }
    return undefined;
  }
  const where = describeDatabase(databaseUrl);
  if (code && PG_UNREACHABLE.has(code)) {
    return new StartupError(`Cannot reach ${where} (${code}): start PostgreSQL or correct the host and port in DATABASE_URL.`);
  }
  if (code === '28P01' || code === '28000') {
    return new StartupError(`${where} refused the login (${e.message}): check the user and password in DATABASE_URL.`);
  }
  if (code === '3D000') {
    return new StartupError(`${where}: ${e.message}. Create it (createdb) or correct the database name in DATABASE_URL.`);
  }
  if (/timeout|terminated|connection/i.test(e?.message ?? '')) {
    return new StartupError(`Cannot reach ${where} (${e.message}): start PostgreSQL or correct DATABASE_URL.`);
  }
  return undefined;
}

/** Explains why a listener could not start; `variable` names the setting to change. */
export function listenStartupError(err: unknown, host: string, port: number, variable: string): StartupError | undefined {
  const code = (err as ErrorWithCode)?.code;
  if (code === 'EADDRINUSE') {
    return new StartupError(
      `Port ${port} on ${host} is already in use (by another Formgate or another program): stop that program or set ${variable} to a free port.`,
    );
  }
  if (code === 'EACCES') {
    return new StartupError(`Not allowed to listen on port ${port} (EACCES): ports below 1024 need privileges; set ${variable} to 1024 or above.`);
  }
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new StartupError(`Cannot listen on ${host} (${code}): set HOST to an address of this machine, such as 127.0.0.1 or 0.0.0.0.`);
  }
  return undefined;
}
