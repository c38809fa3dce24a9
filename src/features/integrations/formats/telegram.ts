import { fitEscaped, fitFields, type CharEscaper } from '../fit.js';
import { footerText, titleText, type SubmissionMessage } from '../message.js';
import type { PlatformRequest } from '../integration.types.js';

/** The three characters Telegram's HTML parse mode requires escaped (and `"` for attributes). */
const escapeTelegram: CharEscaper = (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char] ?? char;

/** A message is 1–4096 characters; counted here escaped, which is never less than Telegram counts. */
export const TELEGRAM_LIMITS = { total: 4096, maxFields: 100, maxName: 100, maxValue: 1000 } as const;

/**
 * Bot API sendMessage to `chatId`, HTML parse mode: names in bold, every piece of submitter text
 * escaped, link previews off, the whole text within 4096 characters.
 */
export function formatTelegram(apiBase: string, token: string, chatId: string, m: SubmissionMessage): PlatformRequest {
  const title = `<b>${fitEscaped(titleText(m), 256, escapeTelegram)}</b>`;
  const tail = `${fitEscaped(footerText(m), 200, escapeTelegram)}\n<a href="${[...m.link].map(escapeTelegram).join('')}">Open the submission in Formgate</a>`;
  const fitted = fitFields(m, {
    maxFields: TELEGRAM_LIMITS.maxFields,
    maxName: TELEGRAM_LIMITS.maxName,
    maxValue: TELEGRAM_LIMITS.maxValue,
    maxTotal: TELEGRAM_LIMITS.total - title.length - tail.length - 16,
    escape: escapeTelegram,
    overhead: '<b></b>: \n'.length,
  });
  const lines = fitted.fields.map((f) => `<b>${f.name}</b>: ${f.value}`);
  if (fitted.note) lines.push(`<i>${fitted.note}</i>`);
  const text = [title, '', ...lines, '', tail].join('\n');
  const payload = { chat_id: chatId, text, parse_mode: 'HTML', link_preview_options: { is_disabled: true } };
  return {
    url: `${apiBase.replace(/\/+$/, '')}/bot${token}/sendMessage`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
  };
}
