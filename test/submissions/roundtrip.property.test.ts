import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { createOwner } from '../helpers/factories.js';
import { startHttpsReceiver, type HttpsReceiver } from '../helpers/https-receiver.js';
import { waitFor } from '../helpers/wait.js';

type Scalar = string | number | boolean | null;
type FieldMap = Record<string, Scalar | Scalar[]>;

const CONTROL_FIELDS = new Set(['_honey', '_gotcha', 'botfield', 'url', 'website', 'cf-turnstile-response', 'access_key', 'redirect']);

const fieldName = fc
  .string({ unit: 'grapheme', minLength: 1, maxLength: 24 })
  .filter((name) => !CONTROL_FIELDS.has(name) && !name.includes('\u0000'));
const text = fc.string({ unit: 'grapheme', maxLength: 60 }).filter((s) => !s.includes('\u0000'));
const jsonScalar: fc.Arbitrary<Scalar> = fc.oneof(
  text,
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
  fc.boolean(),
  fc.constant(null),
);

// Honeypot names are control fields: a filled one would turn the submission into spam.
const jsonMap = fc.dictionary(fieldName, fc.oneof(jsonScalar, fc.array(jsonScalar, { maxLength: 4 })), { maxKeys: 12 });
// Form encodings carry strings; a repeated field (two or more values) comes back as an array.
const formMap = fc.dictionary(fieldName, fc.oneof(text, fc.array(text, { minLength: 2, maxLength: 4 })), { maxKeys: 12 });
// multipart/form-data as browsers (and FormData) write it percent-encodes `"` and line breaks in
// names and turns every line break of a value into CRLF; those bytes are stored as received.
// The quoted name is read as a quoted string (docs/choices.md): a backslash before another one
// or before the closing quote escapes it, so such names do not come back as written.
const multipartName = fieldName.filter((name) => !/["\r\n]/.test(name) && !/\\(\\|$)/.test(name));
const multipartText = text.filter((value) => !/[\r\n]/.test(value));
const multipartMap = fc.dictionary(multipartName, fc.oneof(multipartText, fc.array(multipartText, { minLength: 2, maxLength: 4 })), { maxKeys: 12 });

/** A submission with no non-blank text, number or boolean is refused as empty (docs/api.md). */
const hasContent = (fields: FieldMap) =>
  Object.values(fields).some((value) =>
    (Array.isArray(value) ? value : [value]).some((v) => (typeof v === 'string' ? v.trim() !== '' : v !== null)),
  );

function encode(kind: 'json' | 'urlencoded' | 'multipart', fields: FieldMap): { body: string | FormData | URLSearchParams; headers: Record<string, string> } {
  if (kind === 'json') return { body: JSON.stringify(fields), headers: { 'content-type': 'application/json' } };
  const pairs = Object.entries(fields).flatMap(([name, value]) =>
    (Array.isArray(value) ? value : [value]).map((v) => [name, String(v)] as const),
  );
  if (kind === 'urlencoded') return { body: new URLSearchParams(pairs.map(([n, v]) => [n, v])), headers: {} };
  const form = new FormData();
  for (const [name, value] of pairs) form.append(name, value);
  return { body: form, headers: {} };
}

let t: AppUnderTest;
let receiver: HttpsReceiver;
let owner: Awaited<ReturnType<typeof createOwner>>;

beforeAll(async () => {
  receiver = await startHttpsReceiver();
  // The dispatcher trusts the receiver's self-signed certificate through its CA option.
  t = await buildTestApp({ env: { HOOK_ALLOW_PRIVATE_TARGETS: 'true' }, hookTransport: { ca: receiver.ca } });
  owner = await createOwner(t.services, { planId: 'pro' });
  const hook = await t.fetch('/v1/api/hooks', {
    method: 'POST',
    headers: { ...owner.auth, 'content-type': 'application/json' },
    body: JSON.stringify({ formId: owner.form.id, targetUrl: `${receiver.url}/in` }),
  });
  expect(hook.status).toBe(201);
});
afterAll(async () => {
  await t?.close();
  await receiver?.close();
});

describe('a random flat field map survives submit → store → API → hook unchanged', () => {
  for (const kind of ['json', 'urlencoded', 'multipart'] as const) {
    it(`as ${kind}`, async () => {
      // A key per property keeps each run of reads under the API's 120 requests a minute.
      const auth = { authorization: `Bearer ${(await t.services.apiKeys.createApiKey(owner.account.id, kind)).apiKey}` };
      await fc.assert(
        fc.asyncProperty(kind === 'json' ? jsonMap : kind === 'urlencoded' ? formMap : multipartMap, async (fields) => {
          const { body, headers } = encode(kind, fields);
          const res = await t.fetch(`/v1/submit/${owner.form.id}`, {
            method: 'POST',
            headers: { ...headers, accept: 'application/json' },
            body,
          });
          if (!hasContent(fields)) {
            expect(res.status).toBe(400);
            expect(((await res.json()) as { message: string }).message).toBe('The submission is empty');
            return;
          }
          expect(res.status).toBe(200);
          const { submissionId, filtered } = (await res.json()) as { submissionId: string; filtered?: string };
          expect(filtered).toBeUndefined();

          const api = await t.fetch(`/v1/api/submissions/${submissionId}`, { headers: auth });
          expect(api.status, await api.clone().text()).toBe(200);
          const { submission } = (await api.json()) as { submission: { payload: FieldMap } };
          expect(submission.payload).toEqual(fields);

          await waitFor(
            () => receiver.received.some((r) => String(r.headers['webhook-id']).startsWith(`${submissionId}.`)),
            15_000,
            'the hook delivery',
          );
          const delivery = receiver.received.find((r) => String(r.headers['webhook-id']).startsWith(`${submissionId}.`))!;
          expect((JSON.parse(delivery.body) as { fields: FieldMap }).fields).toEqual(fields);
        }),
        { numRuns: 25, endOnFailure: true },
      );
    });
  }
});
