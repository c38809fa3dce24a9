import { readFileSync } from 'node:fs';
import { parse } from 'dotenv';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../src/platform/config.js';

describe('.env.example', () => {
  const example = parse(readFileSync('.env.example', 'utf8'));

  it('lists every variable of the configuration table in docs/configuration.md', () => {
    const table = readFileSync('docs/configuration.md', 'utf8');
    const documented = [...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]!);
    expect(documented.length).toBeGreaterThan(15);
    expect(documented.filter((name) => !(name in example))).toEqual([]);
  });

  it('holds the defaults: copied to .env as it is, it configures exactly what no .env does', () => {
    expect(parseConfig(example)).toEqual(parseConfig({}));
  });
});
