import { fitEscaped, fitFields, noEscape, type CharEscaper } from '../fit.js';
import { footerText, titleText, type SubmissionMessage } from '../message.js';
import type { PlatformRequest } from '../integration.types.js';

/** Discord Markdown, mentions (`<@…>`, `<#…>`, `<t:…>`) and masked links are escaped with a backslash. */
const escapeDiscord: CharEscaper = (char) => (/[\\`*_~|>#\-[\]()<]/.test(char) ? `\\${char}` : char);

/** Discord's embed limits: 25 fields, names 256, values 1024, title 256, footer 2048, 6000 in all. */
export const DISCORD_LIMITS = { maxFields: 25, maxName: 256, maxValue: 1024, title: 256, total: 6000 } as const;

const DESCRIPTION = 'Open the submission in Formgate';

/**
 * A Discord webhook execution: one embed (title linked to the submission, a field per form field,
 * time and country in the footer), within every embed limit, and `allowed_mentions` that lets
 * nothing ping anyone whatever the text says.
 */
export function formatDiscord(url: string, m: SubmissionMessage): PlatformRequest {
  const title = fitEscaped(titleText(m), DISCORD_LIMITS.title, escapeDiscord);
  // Discord shows a footer as plain text: an escape there would show as a backslash.
  const footer = fitEscaped(footerText(m), 200, noEscape);
  const description = `[${DESCRIPTION}](${m.link})`;
  const fixed = title.length + footer.length + description.length;
  const fitted = fitFields(m, {
    maxFields: DISCORD_LIMITS.maxFields,
    maxName: DISCORD_LIMITS.maxName,
    maxValue: DISCORD_LIMITS.maxValue,
    // Room kept for the note field and a margin for Discord's own counting.
    maxTotal: DISCORD_LIMITS.total - fixed - 100,
    escape: escapeDiscord,
  });
  // Discord refuses an empty field value.
  const fields = fitted.fields.map((f) => ({ name: f.name, value: f.value === '' ? '\u200b' : f.value, inline: false }));
  if (fitted.note) fields.push({ name: 'More fields', value: fitted.note, inline: false });
  const payload = {
    allowed_mentions: { parse: [] },
    embeds: [{ title, url: m.link, description, fields, footer: { text: footer }, timestamp: m.createdAt }],
  };
  return { url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
}
