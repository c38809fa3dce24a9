import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { testDialect } from '../helpers/database.js';

let t: AppUnderTest;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(async () => t?.close());

/** The bot token of the CLI example in docs/integrations.md, as a reader would copy it. */
const docsToken = /--token (\S+)/.exec(readFileSync(new URL('../../docs/integrations.md', import.meta.url), 'utf8'))![1]!;

async function ownerWithForm(email: string): Promise<{ client: DashboardClient; formId: string }> {
  const client = new DashboardClient(t);
  await client.signUp(email);
  await client.get('/dashboard/forms');
  const created = await client.post('/dashboard/forms', { name: 'Contact' });
  return { client, formId: /\/dashboard\/forms\/([^/]+)\/settings/.exec(created.res.headers.get('location')!)![1]! };
}

describe(`adding an integration on the dashboard on ${testDialect}`, () => {
  it('keeps a refused URL in its field, with the message by it', async () => {
    const { client, formId } = await ownerWithForm('integrations-url@example.com');
    await client.get(`/dashboard/forms/${formId}/integrations`);
    const typed = 'http://127.0.0.1:9/hooks/slack';
    const refused = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'slack', name: 'Team', url: typed });
    expect(refused.res.status).toBe(400);
    const slackForm = refused.html.split('<details').find((d) => d.includes('data-kind="slack"'))!;
    expect(slackForm).toContain(`name="url" type="url" maxlength="2048" placeholder="https://hooks.slack.com/services/…" autocomplete="off" value="${typed}"`);
    expect(slackForm).toContain('class="field-error"');
    // The other kinds' forms stay empty.
    expect(refused.html.split('<details').find((d) => d.includes('data-kind="discord"'))).not.toContain(typed);
  });

  it('takes the bot token exactly as the docs show it, and one copied with its bot prefix', async () => {
    expect(docsToken).toMatch(/^\d+:[A-Za-z0-9_-]{35}$/);
    const { client, formId } = await ownerWithForm('integrations-telegram@example.com');
    await client.get(`/dashboard/forms/${formId}/integrations`);
    const added = await client.post(`/dashboard/forms/${formId}/integrations`, { kind: 'telegram', token: docsToken, chatId: '-1001234567890' });
    expect(added.res.status).toBe(303);
    const withPrefix = await t.services.integrations.addIntegration(formId, { kind: 'telegram', token: `bot${docsToken}`, chatId: '@formgate_news' });
    expect(withPrefix.token).toBe('set');
    const row = await t.handle.db.selectFrom('integrations').select('token').where('id', '=', withPrefix.id).executeTakeFirstOrThrow();
    expect(row.token).toBe(docsToken);
    // Still refused: anything that is not a token (an abbreviation with an ellipsis, a URL).
    for (const token of ['123456789:AA…', 'https://api.telegram.org/bot1:x', 'ABC-DEF']) {
      await expect(t.services.integrations.addIntegration(formId, { kind: 'telegram', token, chatId: '-1' })).rejects.toMatchObject({ fieldErrors: { token: expect.stringContaining('@BotFather') } });
    }
  });
});
