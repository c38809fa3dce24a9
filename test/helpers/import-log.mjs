// Loaded with `node --import`: records every module specifier the process resolves into the file
// named by FORMGATE_IMPORT_LOG (one per line), so a test can tell whether a package was loaded.
import { register } from 'node:module';

const hook = `
import { appendFileSync } from 'node:fs';
let file;
export async function initialize(data) { file = data.file; }
export async function resolve(specifier, context, next) {
  appendFileSync(file, specifier + '\\n');
  return next(specifier, context);
}`;

register(`data:text/javascript,${encodeURIComponent(hook)}`, { data: { file: process.env.FORMGATE_IMPORT_LOG } });
