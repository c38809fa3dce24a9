import type { ApiAnswer } from './api-client.js';
import { classifyAnswer, type AttemptOutcome } from './outcome.js';
import type { KindOutcome } from './service-kind.js';

/** The service's own words about an error, from the usual JSON shapes (`error.message`, `message`, `error_description`). */
export function serviceMessage(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object') return typeof body === 'string' && body.trim() !== '' ? body.trim().slice(0, 300) : undefined;
  // `detail` and `title`: an RFC 9457 problem, as Mailchimp answers.
  const b = body as { error?: unknown; message?: unknown; error_description?: unknown; detail?: unknown; title?: unknown };
  const nested = b.error !== null && typeof b.error === 'object' ? (b.error as { message?: unknown; type?: unknown }) : undefined;
  const text = [nested?.message, b.message, b.error_description, b.detail, nested?.type, b.error, b.title].find((v) => typeof v === 'string' && v !== '');
  return typeof text === 'string' ? text.slice(0, 300) : undefined;
}

/**
 * What a service's answer means (the chat kinds' rules: 429, 5xx and no answer retried, 401, 403,
 * 404 and 410 turn the integration off), the reason naming the service and in its words.
 */
export function outcomeOfAnswer(service: string, answer: ApiAnswer): AttemptOutcome {
  const outcome = classifyAnswer(answer);
  if (outcome.kind === 'sent' || answer.status === null) return outcome;
  const said = serviceMessage(answer.body);
  const reason = `${service} answered HTTP ${answer.status}${said ? `: ${said}` : ''}`;
  if (outcome.kind === 'disable') return { kind: 'disable', reason: `${reason} (${DISABLE_HINT[answer.status] ?? 'access refused'})` };
  return { ...outcome, reason };
}

const DISABLE_HINT: Record<number, string> = {
  401: 'the token or key is no longer valid',
  403: 'Formgate may not write there: check the sharing and the token’s rights',
  404: 'the spreadsheet, base, table, database, audience or list was not found, or is not shared with Formgate',
  410: 'it was removed',
};

/** An attempt's outcome with the answer that decided it. */
export const settled = (outcome: AttemptOutcome, answer: Pick<ApiAnswer, 'status' | 'durationMs'> | undefined, extraMs = 0): KindOutcome => ({
  outcome,
  status: answer?.status ?? null,
  durationMs: answer === undefined ? null : answer.durationMs + extraMs,
});

export const isSuccess = (answer: ApiAnswer) => answer.status !== null && answer.status >= 200 && answer.status < 300;
