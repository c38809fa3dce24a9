// The process entry of `node dist/src/server.js` (`npm start`); `formgate serve` reaches the same
// startServer through the CLI. Only one small module is imported statically: the young generation
// is held before the rest of the program is parsed (see startup/young-generation.ts).
import { holdYoungGeneration } from './platform/startup/young-generation.js';

holdYoungGeneration();
const { ConfigError, loadConfig } = await import('./platform/config.js');
const { StartupError } = await import('./platform/startup/startup-errors.js');
const { startServer } = await import('./start-server.js');
try {
  await startServer(loadConfig());
} catch (err) {
  const known = err instanceof ConfigError || err instanceof StartupError;
  process.stderr.write(`${known ? `error: ${(err as Error).message}` : String((err as Error)?.stack ?? err)}\n`);
  process.exit(1);
}
