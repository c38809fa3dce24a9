import { cutBytes, footerText, moreFieldsNote, titleText, type SubmissionMessage } from '../message.js';
import type { PlatformRequest } from '../integration.types.js';

/** ntfy keeps a message of up to 4096 bytes as text (more becomes an attachment). */
export const NTFY_LIMITS = { messageBytes: 4096, titleBytes: 250, maxValueBytes: 1000 } as const;

/**
 * ntfy's JSON publishing (POST to the server root, the topic in the body), which carries UTF-8
 * titles that headers cannot. Plain text (`markdown: false`): nothing in it is markup.
 */
export function formatNtfy(topicUrl: string, token: string | null, m: SubmissionMessage): PlatformRequest {
  const target = new URL(topicUrl);
  const segments = target.pathname.split('/').filter((s) => s !== '');
  const topic = decodeURIComponent(segments.pop() ?? '');
  const root = `${target.origin}/${segments.map((s) => `${s}/`).join('')}`;
  const tail = `\n${footerText(m)}`;
  const budget = NTFY_LIMITS.messageBytes - Buffer.byteLength(tail) - Buffer.byteLength(moreFieldsNote(m.fields.length)) - 2;
  const lines: string[] = [];
  let used = 0;
  let shown = 0;
  for (const f of m.fields) {
    const line = cutBytes(`${f.name}: ${f.value}`, NTFY_LIMITS.maxValueBytes);
    const size = Buffer.byteLength(line) + 1;
    if (used + size > budget) break;
    lines.push(line);
    used += size;
    shown += 1;
  }
  if (shown < m.fields.length) lines.push(moreFieldsNote(m.fields.length - shown));
  const payload = {
    topic,
    title: cutBytes(titleText(m), NTFY_LIMITS.titleBytes),
    message: lines.join('\n') + tail,
    click: m.link,
    markdown: false,
  };
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  return { url: root, headers, body: JSON.stringify(payload) };
}
