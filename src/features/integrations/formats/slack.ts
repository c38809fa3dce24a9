import { fitEscaped, fitFields, noEscape, type TextEscaper } from '../fit.js';
import { footerText, titleText, type SubmissionMessage } from '../message.js';
import type { PlatformRequest } from '../integration.types.js';

/** Slack's control characters (its formatting reference: escape &, < and >, nothing else). */
const SLACK_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** What a backslash escapes in Markdown: ASCII punctuation. */
const MARKDOWN_ESCAPABLE = /^[!-/:-@[-`{-~]$/;

/**
 * For the top-level `text`. Slack reads only its three entities there and shows a backslash as a
 * backslash, so ordinary text (`alert(1)`, `**bold**`) goes as typed. The Slack-compatible servers
 * (Mattermost, Rocket.Chat) read `text` as Markdown, where brackets make links and remote images
 * (`[x](url)`, `[x][ref]` with `[ref]: url`, `![x](url)`): brackets, an `!` before one and the
 * parentheses of a link's target get a backslash there, and so does an `!` after `<`, so that
 * `<!channel>` stays broken even on a server that turns the entities back into `<`. A backslash
 * typed before punctuation is doubled: it would otherwise escape the backslash added after it.
 */
const escapeFallback: TextEscaper = {
  escapeEach(chars) {
    let targetDepth = 0;
    return chars.map((char, i) => {
      const entity = SLACK_ENTITIES[char];
      if (entity) return entity;
      if (char === '\\' && MARKDOWN_ESCAPABLE.test(chars[i + 1] ?? '')) return '\\\\';
      if (char === '[' || char === ']') return `\\${char}`;
      if (char === '!' && (chars[i + 1] === '[' || chars[i - 1] === '<')) return '\\!';
      if (char === '(' && (targetDepth > 0 || chars[i - 1] === ']')) {
        targetDepth += 1;
        return '\\(';
      }
      if (char === ')' && targetDepth > 0) {
        targetDepth -= 1;
        return '\\)';
      }
      return char;
    });
  },
};

/** Limits: header text 150, one rich-text/mrkdwn text 3000, message text kept well under 40k. */
export const SLACK_LIMITS = { header: 150, maxFields: 50, maxName: 100, maxValue: 1000, maxTotal: 3000 } as const;

/**
 * A Slack incoming-webhook message: Block Kit for Slack (a plain-text header, a rich-text block
 * whose text elements are shown literally, a context line with the link) and a `text` that
 * carries the same content escaped, for notifications and for Mattermost and Rocket.Chat, which
 * read only `text`. Submitter text cannot form `<!channel>`, `<@U…>` or links: `<`, `>` and `&`
 * are escaped, and a leading `@` is defused.
 */
export function formatSlack(url: string, m: SubmissionMessage): PlatformRequest {
  const title = fitEscaped(titleText(m), SLACK_LIMITS.header, noEscape);
  const literal = fitFields(m, { ...SLACK_LIMITS, escape: noEscape, overhead: 3 });
  const escaped = fitFields(m, { ...SLACK_LIMITS, escape: escapeFallback, overhead: 3 });
  const elements: Array<Record<string, unknown>> = [];
  for (const f of literal.fields) {
    elements.push({ type: 'text', text: f.name, style: { bold: true } }, { type: 'text', text: `: ${f.value}\n` });
  }
  if (literal.note) elements.push({ type: 'text', text: literal.note, style: { italic: true } });
  const footer = fitEscaped(footerText(m), 200, escapeFallback);
  const link = `<${m.link}|Open the submission in Formgate>`;
  const text = [
    `*${fitEscaped(titleText(m), SLACK_LIMITS.header, escapeFallback)}*`,
    ...escaped.fields.map((f) => `*${f.name}*: ${f.value}`),
    ...(escaped.note ? [escaped.note] : []),
    `${footer} · ${link}`,
  ].join('\n');
  const payload = {
    text,
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: title, emoji: false } },
      ...(elements.length > 0 ? [{ type: 'rich_text', elements: [{ type: 'rich_text_section', elements }] }] : []),
      { type: 'context', elements: [{ type: 'mrkdwn', text: `${footer} · ${link}` }] },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
  return { url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
}
