// `npm run bench:profile`'s options: profile.ts checks them and perf, then imports profile.main.ts,
// which takes their type from here. Node's modules and options.ts alone, so that a refusal or
// `--help` loads nothing of the product.
import { parseArgs } from 'node:util';
import { wholeNumberOption } from './options.js';

const OPTIONS = {
  seconds: { type: 'string', default: '8' },
  body: { type: 'string', default: 'json' },
  frequency: { type: 'string', default: '1999' },
  help: { type: 'boolean', default: false },
} as const;
export const USAGE = 'usage: npm run bench:profile [-- --seconds 8 --body json|urlencoded --frequency 1999]';
/**
 * Samples a second on each CPU. Far above this, perf spends the machine on its own interrupts:
 * at 100,000 Hz here it never acknowledged "enable".
 */
const MAX_FREQUENCY = 10_000;

export function parseOptions() {
  const { values } = parseArgs({ options: OPTIONS });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    process.exit(0);
  }
  if (values.body !== 'json' && values.body !== 'urlencoded') throw new Error(`--body takes json or urlencoded, not ${JSON.stringify(values.body)}`);
  const frequency = wholeNumberOption('frequency', values.frequency);
  if (frequency > MAX_FREQUENCY) throw new Error(`--frequency takes at most ${MAX_FREQUENCY} (samples a second on each CPU), not ${frequency}`);
  return { seconds: wholeNumberOption('seconds', values.seconds), frequency, body: values.body as 'json' | 'urlencoded' };
}

export type ProfileOptions = ReturnType<typeof parseOptions>;
