// The checkout the bench measures and reports on, found from this file rather than from the working
// directory: npm runs a workspace's scripts in bench/, tests run them from wherever they are.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** A path of the checkout (the product's package.json, its build in dist/). */
export const atRoot = (path: string) => resolve(ROOT, path);

/** This checkout's build, which `npm run bench…` has just compiled: bench:pair's A. */
export const THIS_BUILD = atRoot('dist');

/**
 * A path the person running the bench typed: npm runs the script in bench/, but the path was meant
 * from where npm was started (INIT_CWD, which npm sets), the checkout's root or elsewhere.
 */
export const fromInvocation = (path: string) => resolve(process.env.INIT_CWD ?? process.cwd(), path);
