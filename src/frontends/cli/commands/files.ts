import type { Command } from 'commander';
import { createCopyStorages } from '../../../features/files/file-storage.factory.js';
import { withServices } from '../context.js';

export function registerFiles(program: Command): void {
  const files = program.command('files').description('move uploaded files between storages');

  files
    .command('copy')
    .description('copy every uploaded file from the local folder (FILES_DIR) to the S3 store S3_* configure, under the same keys')
    .requiredOption('--to <storage>', 'the target: s3')
    .option('--json', 'print JSON')
    .action((o: { to: string; json?: boolean }) =>
      withServices(
        o,
        async (s, config) => {
          if (o.to !== 's3') throw new Error(`--to must be s3, not ${JSON.stringify(o.to)}.`);
          const { from, to } = createCopyStorages(config.files);
          try {
            const result = await s.files.copyFiles(from, to);
            if (result.missing.length > 0) {
              throw new Error(`${result.missing.length} file(s) are not in ${from.description} (${result.missing.slice(0, 5).join(', ')}${result.missing.length > 5 ? ', …' : ''}); the other ${result.copied} were copied.`);
            }
            return { copied: { files: result.copied } };
          } finally {
            await Promise.all([from.close(), to.close()]);
          }
        },
        (r) => `Copied ${r.copied.files} file(s) to S3. Set FILES_STORAGE=s3 and start Formgate.`,
      ),
    );
}
