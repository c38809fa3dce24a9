import { describe, expect, it } from 'vitest';
import { formatDiscord } from '../../src/features/integrations/formats/discord.js';
import { formatNtfy } from '../../src/features/integrations/formats/ntfy.js';
import { formatSlack } from '../../src/features/integrations/formats/slack.js';
import { formatTeams } from '../../src/features/integrations/formats/teams.js';
import { formatTelegram } from '../../src/features/integrations/formats/telegram.js';
import { buildSubmissionMessage } from '../../src/features/integrations/message.js';

// What a reader sees of ordinary text: no escape where the platform would show it, the time in
// words as the notification emails say it, and an unknown country (XX) said as "unknown".
const LINK = 'https://forms.example.com/dashboard/submissions/sub_1';
const message = buildSubmissionMessage(
  'Contact',
  { id: 'sub_1', createdAt: '2026-12-02T09:30:00.000Z', country: 'XX', payload: { message: 'alert(1) is **bold**', date: '2026-12-02' } },
  LINK,
);
const FOOTER = '2 Dec 2026, 09:30 UTC · country: unknown';

describe('the text of each format for ordinary punctuation, a date and an unknown country', () => {
  it('Slack: the fallback text escapes only what Slack reads (and link syntax), the blocks nothing', () => {
    const payload = JSON.parse(formatSlack('https://hooks.slack.com/services/T/B/X', message).body);
    expect(payload.text).toBe(
      ['*New submission: Contact*', '*message*: alert(1) is **bold**', '*date*: 2026-12-02', `${FOOTER} · <${LINK}|Open the submission in Formgate>`].join('\n'),
    );
    expect(payload.blocks[1].elements[0].elements.map((e: { text: string }) => e.text).join('')).toBe('message: alert(1) is **bold**\ndate: 2026-12-02\n');
    expect(payload.blocks[2].elements[0].text).toBe(`${FOOTER} · <${LINK}|Open the submission in Formgate>`);
  });

  it('Slack: link and image syntax stays broken for Markdown readers, even behind a typed backslash', () => {
    const hostile = buildSubmissionMessage(
      'Contact',
      { id: 'sub_1', createdAt: '2026-12-02T09:30:00.000Z', country: 'XX', payload: { m: 'see [docs](https://evil.example/a_(b)) \\[x](https://e.example) ![i](https://t.example) (ok) C:\\temp' } },
      LINK,
    );
    const { text } = JSON.parse(formatSlack('https://hooks.slack.com/services/T/B/X', hostile).body);
    expect(text.split('\n')[1]).toBe(
      '*m*: see \\[docs\\]\\(https://evil.example/a_\\(b\\)\\) \\\\\\[x\\]\\(https://e.example\\) \\!\\[i\\]\\(https://t.example\\) (ok) C:\\temp',
    );
  });

  it('Discord: Markdown escapes in the fields (where Discord hides them), none in the footer', () => {
    const embed = JSON.parse(formatDiscord('https://discord.com/api/webhooks/1/abc', message).body).embeds[0];
    expect(embed.fields).toEqual([
      { name: 'message', value: 'alert\\(1\\) is \\*\\*bold\\*\\*', inline: false },
      { name: 'date', value: '2026\\-12\\-02', inline: false },
    ]);
    expect(embed.footer).toEqual({ text: FOOTER });
    expect(embed.timestamp).toBe('2026-12-02T09:30:00.000Z');
  });

  it('Telegram: HTML with nothing to escape', () => {
    const { text } = JSON.parse(formatTelegram('https://api.telegram.org', '1:A', '5', message).body);
    expect(text).toBe(
      [
        '<b>New submission: Contact</b>',
        '',
        '<b>message</b>: alert(1) is **bold**',
        '<b>date</b>: 2026-12-02',
        '',
        FOOTER,
        `<a href="${LINK}">Open the submission in Formgate</a>`,
      ].join('\n'),
    );
  });

  it('Teams: plain TextRuns', () => {
    const card = JSON.parse(formatTeams('https://prod.westeurope.logic.azure.com/workflows/x', message).body).attachments[0].content;
    expect(card.body.map((block: { inlines: Array<{ text: string }> }) => block.inlines.map((run) => run.text).join(''))).toEqual([
      'New submission: Contact',
      'message: alert(1) is **bold**',
      'date: 2026-12-02',
      FOOTER,
    ]);
  });

  it('ntfy: plain text', () => {
    const payload = JSON.parse(formatNtfy('https://ntfy.sh/t', null, message).body);
    expect(payload.title).toBe('New submission: Contact');
    expect(payload.message).toBe(`message: alert(1) is **bold**\ndate: 2026-12-02\n${FOOTER}`);
  });
});
