import { Command } from 'commander';
import { ConfigError } from '../../platform/config.js';
import { VERSION } from '../../platform/version.js';
import { registerAccounts } from './commands/accounts.js';
import { registerAudit } from './commands/audit.js';
import { registerBackup } from './commands/backup.js';
import { registerDb } from './commands/db.js';
import { registerFiles } from './commands/files.js';
import { registerForms } from './commands/forms.js';
import { registerIntegrations } from './commands/integrations.js';
import { registerKeys } from './commands/keys.js';
import { registerMail } from './commands/mail.js';
import { registerMembers } from './commands/members.js';
import { registerMigrate } from './commands/migrate.js';
import { registerMcp } from './commands/mcp.js';
import { registerConfig } from './commands/config.js';
import { registerServe } from './commands/serve.js';
import { registerSuppressions } from './commands/suppressions.js';
import { registerPurge, registerSubmissions } from './commands/submissions.js';
import { formatCliError } from './context.js';
import { releaseYoungGeneration } from '../../platform/startup/young-generation.js';

const program = new Command()
  .name('formgate')
  .description('Formgate operator CLI. Configuration comes from the environment and .env.')
  .version(VERSION, '-V, --version', 'print the version')
  .showHelpAfterError()
  // The bin held the young generation for the server's start-up; the server releases it once
  // listening, and a one-shot command has no start-up to speak of.
  .hook('preAction', (_program, command) => {
    if (command.name() !== 'serve') releaseYoungGeneration();
  });

registerServe(program);
registerMigrate(program);
registerAccounts(program);
registerKeys(program);
registerForms(program);
registerBackup(program);
registerDb(program);
registerFiles(program);
registerSubmissions(program);
registerPurge(program);
registerMail(program);
registerIntegrations(program);
registerSuppressions(program);
registerAudit(program);
registerMembers(program);
registerMcp(program);
registerConfig(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  process.stderr.write(`${err instanceof ConfigError ? `error: ${err.message}` : formatCliError(err)}\n`);
  process.exitCode = 1;
}
