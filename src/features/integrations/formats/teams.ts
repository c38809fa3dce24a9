import { fitEscaped, fitFields, noEscape } from '../fit.js';
import { footerText, titleText, type SubmissionMessage } from '../message.js';
import type { PlatformRequest } from '../integration.types.js';

/**
 * A Workflows webhook message is about 28 KB at most; the card is kept under this many bytes of
 * JSON (UTF-8, after JSON escaping), with room to spare.
 */
export const TEAMS_LIMITS = { bytes: 24_000, maxFields: 100, maxName: 200, maxValue: 2000 } as const;

/** Bytes a string takes inside the JSON body. */
const jsonBytes = (s: string) => Buffer.byteLength(JSON.stringify(s)) - 2;

/**
 * A Teams Workflows ("When a Teams webhook request is received") message: an Adaptive Card in
 * `attachments`. Submitter text goes only into RichTextBlock TextRuns, which Adaptive Cards never
 * read as Markdown, and Teams mentions need `msteams.entities`, which this card has none of.
 */
export function formatTeams(url: string, m: SubmissionMessage): PlatformRequest {
  const run = (text: string, extra: Record<string, unknown> = {}) => ({ type: 'TextRun', text, ...extra });
  const title = fitEscaped(titleText(m), 256, noEscape);
  const fitted = fitFields(m, {
    maxFields: TEAMS_LIMITS.maxFields,
    maxName: TEAMS_LIMITS.maxName,
    maxValue: TEAMS_LIMITS.maxValue,
    maxTotal: TEAMS_LIMITS.bytes - 2000,
    escape: noEscape,
    measure: jsonBytes,
    // The JSON of two TextRuns and a RichTextBlock around each pair.
    overhead: 110,
  });
  const body: Array<Record<string, unknown>> = [
    { type: 'RichTextBlock', inlines: [run(title, { weight: 'Bolder', size: 'Medium' })] },
    ...fitted.fields.map((f) => ({ type: 'RichTextBlock', inlines: [run(`${f.name}: `, { weight: 'Bolder' }), run(f.value)] })),
  ];
  if (fitted.note) body.push({ type: 'RichTextBlock', inlines: [run(fitted.note, { italic: true })] });
  body.push({ type: 'RichTextBlock', inlines: [run(fitEscaped(footerText(m), 200, noEscape), { isSubtle: true })] });
  const payload = {
    type: 'message',
    attachments: [
      {
        contentType: 'application/vnd.microsoft.card.adaptive',
        contentUrl: null,
        content: {
          $schema: 'http://adaptivecards.io/schemas/adaptive-card.json',
          type: 'AdaptiveCard',
          version: '1.4',
          body,
          actions: [{ type: 'Action.OpenUrl', title: 'Open the submission in Formgate', url: m.link }],
        },
      },
    ],
  };
  return { url, headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) };
}
