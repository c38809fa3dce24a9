// The bench scripts' option checks. An entry script (run.ts, pair.ts, profile.ts) parses its
// options (its *.options.ts) with these and only then imports what it runs, so a refusal or
// `--help` loads nothing of the product: keep this file's imports to Node's own modules.

/**
 * A bench script's options, checked before anything runs or is written: a mistake prints what
 * was wrong and the usage, and exits 2 (a misspelt option would otherwise measure something else
 * and report it as what was asked).
 */
export function parseOptionsOrExit<T>(parse: () => T, usage: string): T {
  try {
    return parse();
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    process.exit(2);
  }
}

/** A count option's value (rounds, seconds, rows), which must be a whole number above 0. */
export function wholeNumberOption(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`--${name} takes a whole number above 0, not "${text}"`);
  return value;
}
