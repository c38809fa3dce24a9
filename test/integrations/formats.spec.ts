import { describe, expect, it } from 'vitest';
import { formatDiscord, DISCORD_LIMITS } from '../../src/features/integrations/formats/discord.js';
import { formatNtfy } from '../../src/features/integrations/formats/ntfy.js';
import { formatSlack } from '../../src/features/integrations/formats/slack.js';
import { formatTeams } from '../../src/features/integrations/formats/teams.js';
import { formatTelegram } from '../../src/features/integrations/formats/telegram.js';
import { buildSubmissionMessage, type SubmissionMessage } from '../../src/features/integrations/message.js';
import { classifyAnswer, parseRetryAfter } from '../../src/features/integrations/outcome.js';

const LINK = 'https://forms.example.com/dashboard/submissions/sub_1';

const simple = buildSubmissionMessage(
  'Contact',
  { id: 'sub_1', createdAt: '2026-11-24T10:00:00.000Z', country: 'DE', payload: { email: 'ada@example.com', tags: ['a', 'b'] } },
  LINK,
);

/** Everything a hostile submitter can put into a form, in one submission. */
function hostile(): SubmissionMessage {
  const payload: Record<string, unknown> = {
    ping: '@everyone @here @channel <!channel> <!here> <@U123> <@123> <@&456> <#789>',
    markdown: '**bold** _it_ ~~s~~ `code` [click](https://evil.example) ![img](https://tracker.example/p.png) # head > quote',
    html: '<script>alert(1)</script><b>bold</b><a href="https://evil.example">x</a> &amp; <at>Boss</at>',
    long: 'x'.repeat(10_000),
    '@everyone <@123> **name**': 'field name is hostile too',
    // A file's name is the client's too, and chat messages show it.
    upload: { file: { id: 'fil_1', name: '@everyone <@123> [x](https://evil.example).png', size: 10, type: 'image/png', url: 'https://forms.example.com/v1/files/fil_1?expires=1&signature=s' } },
  };
  for (let i = 0; i < 300; i++) payload[`field${i}`] = `value ${i} @here`;
  return buildSubmissionMessage('Contact <@&1> @everyone', { id: 'sub_1', createdAt: '2026-11-24T10:00:00.000Z', country: 'DE', payload }, LINK);
}

/** No mention can survive: every `@` that starts a word is followed by a zero-width space. */
function expectNoMention(text: string) {
  expect(text).not.toMatch(/(^|[^\p{L}\p{N}_.+-])@(?!\u200b)/u);
  expect(text).not.toMatch(/(?<!\\)<[@!#]/);
}

describe('Slack', () => {
  it('posts blocks and a fallback text, exactly', () => {
    const request = formatSlack('https://hooks.slack.com/services/T/B/X', simple);
    expect(request.url).toBe('https://hooks.slack.com/services/T/B/X');
    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(request.body)).toEqual({
      text: [
        '*New submission: Contact*',
        '*email*: ada@example.com',
        '*tags*: a, b',
        `24 Nov 2026, 10:00 UTC · country: DE · <${LINK}|Open the submission in Formgate>`,
      ].join('\n'),
      blocks: [
        { type: 'header', text: { type: 'plain_text', text: 'New submission: Contact', emoji: false } },
        {
          type: 'rich_text',
          elements: [
            {
              type: 'rich_text_section',
              elements: [
                { type: 'text', text: 'email', style: { bold: true } },
                { type: 'text', text: ': ada@example.com\n' },
                { type: 'text', text: 'tags', style: { bold: true } },
                { type: 'text', text: ': a, b\n' },
              ],
            },
          ],
        },
        { type: 'context', elements: [{ type: 'mrkdwn', text: `24 Nov 2026, 10:00 UTC · country: DE · <${LINK}|Open the submission in Formgate>` }] },
      ],
      unfurl_links: false,
      unfurl_media: false,
    });
  });

  it('a hostile submission pings nobody, makes no link or markup, and stays within limits', () => {
    const payload = JSON.parse(formatSlack('https://hooks.slack.com/services/T/B/X', hostile()).body);
    const ownLink = `<${LINK}|Open the submission in Formgate>`;
    const text: string = payload.text;
    expect(text.split(ownLink).join('')).not.toMatch(/[<>]/);
    expectNoMention(text.split(ownLink).join(''));
    expect(text).toContain('&lt;\\!channel&gt;');
    expect(text).toContain('\\[click\\]\\(https://evil.example\\)');
    expect(text).toContain('\\!\\[img\\]');
    expect(text).toContain('… (cut)');
    expect(text).toMatch(/and \d+ more fields not shown/);
    expect(text.length).toBeLessThanOrEqual(3000 + 400);
    expect(payload.blocks[0].text.text.length).toBeLessThanOrEqual(150);
    const runs: Array<{ text: string }> = payload.blocks[1].elements[0].elements;
    const literal = runs.map((r) => r.text).join('');
    expectNoMention(literal.replace(/[<>]/g, ''));
    expect(literal.length).toBeLessThanOrEqual(3000);
    expect(literal).toMatch(/more fields not shown/);
    expect(payload.blocks.length).toBeLessThanOrEqual(50);
    expect(payload.blocks[2].elements[0].text).toBe(`24 Nov 2026, 10:00 UTC · country: DE · ${ownLink}`);
  });
});

describe('Discord', () => {
  it('posts one embed with allowed_mentions that parse nothing, exactly', () => {
    const request = formatDiscord('https://discord.com/api/webhooks/1/abc', simple);
    expect(JSON.parse(request.body)).toEqual({
      allowed_mentions: { parse: [] },
      embeds: [
        {
          title: 'New submission: Contact',
          url: LINK,
          description: `[Open the submission in Formgate](${LINK})`,
          fields: [
            { name: 'email', value: 'ada@example.com', inline: false },
            { name: 'tags', value: 'a, b', inline: false },
          ],
          footer: { text: '24 Nov 2026, 10:00 UTC · country: DE' },
          timestamp: '2026-11-24T10:00:00.000Z',
        },
      ],
    });
  });

  it('a hostile submission pings nobody and keeps every embed limit', () => {
    const payload = JSON.parse(formatDiscord('https://discord.com/api/webhooks/1/abc', hostile()).body);
    expect(payload.allowed_mentions).toEqual({ parse: [] });
    expect(payload.content).toBeUndefined();
    const embed = payload.embeds[0];
    expect(embed.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.maxFields);
    let total = embed.title.length + embed.description.length + embed.footer.text.length;
    for (const f of embed.fields) {
      expect(f.name.length).toBeGreaterThan(0);
      expect(f.name.length).toBeLessThanOrEqual(256);
      expect(f.value.length).toBeGreaterThan(0);
      expect(f.value.length).toBeLessThanOrEqual(1024);
      total += f.name.length + f.value.length;
      expectNoMention(f.name);
      expectNoMention(f.value);
      // Markdown and links are escaped: a bracket or star is always preceded by a backslash.
      expect(f.value.replace(/\\./g, '').replace('… (cut)', '')).not.toMatch(/[*_`[\]()<>~|]/);
    }
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(total).toBeLessThanOrEqual(6000);
    expect(embed.fields.at(-1).value).toMatch(/more fields not shown/);
    expect(embed.fields.find((f: { name: string }) => f.name === 'long').value).toMatch(/… \\\(cut\\\)$|… \(cut\)$/);
  });
});

describe('Telegram', () => {
  it('calls sendMessage with HTML parse mode, exactly', () => {
    const request = formatTelegram('https://api.telegram.org', '123:ABC', '-1001', simple);
    expect(request.url).toBe('https://api.telegram.org/bot123:ABC/sendMessage');
    expect(JSON.parse(request.body)).toEqual({
      chat_id: '-1001',
      text: [
        '<b>New submission: Contact</b>',
        '',
        '<b>email</b>: ada@example.com',
        '<b>tags</b>: a, b',
        '',
        '24 Nov 2026, 10:00 UTC · country: DE',
        `<a href="${LINK}">Open the submission in Formgate</a>`,
      ].join('\n'),
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
    });
  });

  it('a hostile submission injects no tag, pings nobody and fits 4096 characters', () => {
    const { text } = JSON.parse(formatTelegram('https://api.telegram.org', '1:A', '5', hostile()).body);
    expect(text.length).toBeLessThanOrEqual(4096);
    const withoutOwnTags = text.replace(/<\/?(b|i)>/g, '').replace(`<a href="${LINK}">`, '').replace('</a>', '');
    expect(withoutOwnTags).not.toMatch(/[<>]/);
    expect(text).toContain('&lt;script&gt;');
    expectNoMention(withoutOwnTags);
    expect(text).toMatch(/more fields not shown/);
  });
});

describe('Teams', () => {
  it('posts an Adaptive Card in a message, exactly', () => {
    const payload = JSON.parse(formatTeams('https://prod.westeurope.logic.azure.com/workflows/x', simple).body);
    const run = (text: string, extra = {}) => ({ type: 'TextRun', text, ...extra });
    expect(payload).toEqual({
      type: 'message',
      attachments: [
        {
          contentType: 'application/vnd.microsoft.card.adaptive',
          contentUrl: null,
          content: {
            $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
            type: 'AdaptiveCard',
            version: '1.4',
            body: [
              { type: 'RichTextBlock', inlines: [run('New submission: Contact', { weight: 'Bolder', size: 'Medium' })] },
              { type: 'RichTextBlock', inlines: [run('email: ', { weight: 'Bolder' }), run('ada@example.com')] },
              { type: 'RichTextBlock', inlines: [run('tags: ', { weight: 'Bolder' }), run('a, b')] },
              { type: 'RichTextBlock', inlines: [run('24 Nov 2026, 10:00 UTC · country: DE', { isSubtle: true })] },
            ],
            actions: [{ type: 'Action.OpenUrl', title: 'Open the submission in Formgate', url: LINK }],
          },
        },
      ],
    });
  });

  it('a hostile submission stays plain TextRuns under the size limit', () => {
    const body = formatTeams('https://example.com/x', hostile()).body;
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(28_000);
    const card = JSON.parse(body).attachments[0].content;
    expect(JSON.stringify(card)).not.toContain('msteams');
    for (const block of card.body) {
      expect(block.type).toBe('RichTextBlock');
      for (const inline of block.inlines) expect(inline.type).toBe('TextRun');
    }
    expect(card.body.at(-2).inlines[0].text).toMatch(/more fields not shown/);
  });
});

describe('ntfy', () => {
  it('publishes JSON to the server root with the topic in the body, exactly', () => {
    const request = formatNtfy('https://ntfy.sh/formgate-abc', 'tk_secret', simple);
    expect(request.url).toBe('https://ntfy.sh/');
    expect(request.headers).toEqual({ 'content-type': 'application/json', authorization: 'Bearer tk_secret' });
    expect(JSON.parse(request.body)).toEqual({
      topic: 'formgate-abc',
      title: 'New submission: Contact',
      message: 'email: ada@example.com\ntags: a, b\n24 Nov 2026, 10:00 UTC · country: DE',
      click: LINK,
      markdown: false,
    });
    expect(formatNtfy('https://push.example.com/sub/path/topic', null, simple).url).toBe('https://push.example.com/sub/path/');
    expect(formatNtfy('https://push.example.com/t', null, simple).headers).toEqual({ 'content-type': 'application/json' });
  });

  it('a hostile submission is plain text within 4096 bytes', () => {
    const payload = JSON.parse(formatNtfy('https://ntfy.sh/t', null, hostile()).body);
    expect(Buffer.byteLength(payload.message)).toBeLessThanOrEqual(4096);
    expect(payload.markdown).toBe(false);
    expect(payload.message).toMatch(/more fields not shown/);
    expect(payload.message).toContain('… (cut)');
  });
});

describe('answers', () => {
  it('classify into sent, retry, disable and failed', () => {
    const now = Date.parse('2026-11-24T10:00:00Z');
    expect(classifyAnswer({ status: 200, error: null })).toEqual({ kind: 'sent' });
    expect(classifyAnswer({ status: 204, error: null })).toEqual({ kind: 'sent' });
    expect(classifyAnswer({ status: null, error: 'timeout' })).toEqual({ kind: 'retry', reason: 'timeout' });
    expect(classifyAnswer({ status: null, error: 'ECONNREFUSED' })).toEqual({ kind: 'retry', reason: 'ECONNREFUSED' });
    expect(classifyAnswer({ status: null, error: 'refused: x resolves to no public address' }).kind).toBe('failed');
    expect(classifyAnswer({ status: 429, error: null, retryAfter: '7' })).toEqual({ kind: 'retry', reason: 'HTTP 429 Too Many Requests', retryAfterMs: 7000 });
    expect(classifyAnswer({ status: 429, error: null, retryAfter: 'Tue, 24 Nov 2026 10:00:30 GMT' }, now)).toMatchObject({ retryAfterMs: 30_000 });
    expect(classifyAnswer({ status: 429, error: null })).toEqual({ kind: 'retry', reason: 'HTTP 429 Too Many Requests' });
    for (const status of [500, 502, 503, 504, 408]) expect(classifyAnswer({ status, error: null }).kind).toBe('retry');
    for (const status of [401, 403, 404, 410]) expect(classifyAnswer({ status, error: null }).kind).toBe('disable');
    for (const status of [400, 413, 422, 301]) expect(classifyAnswer({ status, error: null }).kind).toBe('failed');
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter(String(10 * 86_400))).toBeUndefined();
  });
});
