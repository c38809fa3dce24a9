import type { AppUnderTest } from './app.js';

export type Body =
  | { json: unknown }
  | { form: Record<string, string | string[]> }
  | { multipart: FormData }
  | { raw: string; contentType?: string };

/** POSTs to a submit URL (over loopback when the app listens); redirects are returned, not followed. */
export async function submit(
  t: AppUnderTest,
  formId: string,
  body: Body,
  headers: Record<string, string> = {},
): Promise<Response> {
  const h: Record<string, string> = { ...headers };
  let payload: string | FormData | URLSearchParams;
  if ('json' in body) {
    h['content-type'] ??= 'application/json';
    payload = JSON.stringify(body.json);
  } else if ('form' in body) {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(body.form)) {
      for (const v of Array.isArray(value) ? value : [value]) params.append(name, v);
    }
    payload = params;
  } else if ('multipart' in body) {
    payload = body.multipart;
  } else {
    if (body.contentType) h['content-type'] = body.contentType;
    payload = body.raw;
  }
  return t.fetch(`/v1/submit/${formId}`, { method: 'POST', headers: h, body: payload, redirect: 'manual' });
}

export const JSON_ACCEPT = { accept: 'application/json' } as const;
export const BROWSER_ACCEPT = {
  accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
} as const;

/** The stored row of a submission, read straight from the database. */
export async function storedSubmission(t: AppUnderTest, id: string) {
  return t.handle.db.selectFrom('submissions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countStored(t: AppUnderTest, formId: string): Promise<number> {
  const row = await t.handle.db
    .selectFrom('submissions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('form_id', '=', formId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
