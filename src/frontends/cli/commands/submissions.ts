import type { Command } from 'commander';
import { validationFailed } from '../../../platform/errors.js';
import { submissionToApiSubmission } from '../../../features/submissions/submission.types.js';
import { withServices } from '../context.js';

export function registerSubmissions(program: Command): void {
  const submissions = program.command('submissions').description('triage and erase submissions');

  submissions
    .command('mark <submissionId>')
    .description('mark a submission spam, or not spam (then it goes to the form\'s hooks once, as a new one would)')
    .option('--spam', 'mark it spam')
    .option('--not-spam', 'mark it not spam')
    .option('--json', 'print JSON')
    .action((submissionId: string, o: { spam?: boolean; notSpam?: boolean; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          if (Boolean(o.spam) === Boolean(o.notSpam)) {
            throw validationFailed('Give exactly one of --spam and --not-spam.', { spam: 'give --spam or --not-spam' });
          }
          await s.triage.markSubmission(submissionId, Boolean(o.spam));
          return { submission: submissionToApiSubmission(await s.submissionQueries.getSubmissionForOperator(submissionId)) };
        },
        ({ submission }) => `Submission ${submission.id} marked ${submission.isSpam ? 'spam' : 'not spam'}.`,
      ),
    );

  submissions
    .command('erase <account>')
    .description("delete every submission of the account's forms (account by ID or email) with a field equal to the address")
    .requiredOption('--email <address>', 'the address to erase (case-insensitive)')
    .option('--json', 'print JSON')
    .action((account: string, o: { email: string; json?: boolean }) =>
      withServices(
        o,
        async (s) => {
          const owner = await s.accounts.getAccountByIdOrEmail(account);
          return { deleted: (await s.lifecycle.eraseByEmail(owner.id, o.email)).deleted };
        },
        ({ deleted }) => `${deleted} submission(s) erased.`,
      ),
    );
}

export function registerPurge(program: Command): void {
  program
    .command('purge')
    .description('run the retention purge now (submissions older than their form\'s retentionDays)')
    .option('--json', 'print JSON')
    .action((o: { json?: boolean }) =>
      withServices(
        o,
        async (s) => ({ deleted: (await s.lifecycle.purgeExpiredSubmissions()).deleted }),
        ({ deleted }) => `${deleted} expired submission(s) deleted.`,
      ),
    );
}
