import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/features/members/member.types.js';
import { randomBase62 } from '../../src/platform/lib/ids.js';
import { buildTestApp, type AppUnderTest } from '../helpers/app.js';
import { testDialect } from '../helpers/database.js';
import { DashboardClient } from '../helpers/dashboard-client.js';
import { createAccount, createForm } from '../helpers/factories.js';

/** The settings page's "Sealed form" section: what it says, what it changes, and who may change it. */

const PASSWORD = 'correct horse battery';
const unique = () => `s-${randomBase62(8).toLowerCase()}@example.com`;
/** A fresh age X25519 recipient from Debian's age-keygen (it prints the identity; -y turns it into the recipient). */
const newRecipient = (): string => {
  const identity = execFileSync('/usr/bin/age-keygen', { stdio: ['ignore', 'pipe', 'ignore'] }).toString('utf8');
  return execFileSync('/usr/bin/age-keygen', ['-y'], { input: identity }).toString('utf8').trim();
};

let t: AppUnderTest;
let ownerId: string;
const clients = new Map<Role, DashboardClient>();

beforeAll(async () => {
  t = await buildTestApp();
  const owner = await createAccount(t.services, { email: unique(), password: PASSWORD, planId: 'business' });
  ownerId = owner.id;
  const emails = new Map<Role, string>([['owner', owner.email]]);
  for (const role of ['admin', 'member', 'viewer'] as const) {
    emails.set(role, unique());
    await t.services.members.add(owner.id, { email: emails.get(role)!, role, password: PASSWORD });
  }
  for (const [role, email] of emails) {
    const client = new DashboardClient(t);
    await client.get('/dashboard/login');
    expect((await client.post('/dashboard/login', { email, password: PASSWORD })).res.status).toBe(303);
    clients.set(role, client);
  }
}, 60_000);

afterAll(async () => {
  await t?.close();
});

describe(`the sealed form settings on ${testDialect}`, () => {
  it('seal with a pasted recipient, add a labelled one, remove one, unseal; the snippet and notices follow', async () => {
    const form = await createForm(t.services, ownerId);
    const owner = clients.get('owner')!;
    const settings = `/dashboard/forms/${form.id}/settings`;
    const first = newRecipient();
    const second = newRecipient();

    const off = (await owner.get(settings)).html;
    expect(off).toContain('id="sealed-off"');
    expect(off).not.toContain('data-formgate-seal');

    const bad = await owner.post(`/dashboard/forms/${form.id}/sealed/add`, { recipient: `${first.slice(0, -1)}q`, label: '' });
    expect(bad.res.status).toBe(400);
    expect(bad.html).toContain('id="sealed-recipient-error"');
    expect((await t.services.forms.getForm(form.id)).sealed).toBeNull();

    const sealed = await owner.post(`/dashboard/forms/${form.id}/sealed/add`, { recipient: ` ${first} `, label: '' });
    expect(sealed.res.status).toBe(200);
    expect(sealed.html).toContain('The form is sealed');
    expect(sealed.html).toContain('id="sealed-notice"');
    expect(sealed.html).toContain('Off while the form is sealed');
    // Both snippets carry the recipients in the page (the script variant is the one that seals).
    expect(sealed.html.match(new RegExp(`data-formgate-seal=&quot;${first}&quot;`, 'g'))).toHaveLength(2);

    await owner.get(settings);
    const added = await owner.post(`/dashboard/forms/${form.id}/sealed/add`, { recipient: second, label: 'Offline <backup>' });
    expect(added.res.status).toBe(200);
    expect(added.html).toContain('Offline &lt;backup&gt;');
    expect(added.html).toContain(`data-formgate-seal=&quot;${first} ${second}&quot;`);
    expect((await t.services.forms.getForm(form.id)).sealed).toEqual({ recipients: [{ recipient: first, label: null }, { recipient: second, label: 'Offline <backup>' }] });

    const removed = await owner.post(`/dashboard/forms/${form.id}/sealed/remove`, { recipient: first });
    expect(removed.res.status).toBe(200);
    expect((await t.services.forms.getForm(form.id)).sealed).toEqual({ recipients: [{ recipient: second, label: 'Offline <backup>' }] });
    // The last one stays: unsealing is its own step.
    const last = await owner.post(`/dashboard/forms/${form.id}/sealed/remove`, { recipient: second });
    expect(last.res.status).toBe(400);
    expect((await t.services.forms.getForm(form.id)).sealed?.recipients).toHaveLength(1);

    // Files and sealing exclude each other: the page says so by the field.
    const files = await owner.get(settings);
    expect(files.html).toContain('id="sealed-unseal"');
    const unsealed = await owner.post(`/dashboard/forms/${form.id}/sealed/unseal`, {});
    expect(unsealed.res.status).toBe(200);
    expect((await t.services.forms.getForm(form.id)).sealed).toBeNull();
    await t.services.forms.updateForm(form.id, { files: 'store' });
    await owner.get(settings);
    const refused = await owner.post(`/dashboard/forms/${form.id}/sealed/add`, { recipient: first, label: '' });
    expect(refused.res.status).toBe(400);
    expect(refused.html).toContain('This form keeps files');
    expect((await t.services.forms.getForm(form.id)).sealed).toBeNull();
  });

  it('only owners and admins see the section and may change it', async () => {
    const recipient = newRecipient();
    const form = await createForm(t.services, ownerId, { sealed: { recipients: [{ recipient, label: null }] } });
    for (const [role, client] of clients) {
      const page = await client.get(`/dashboard/forms/${form.id}/settings`);
      const manager = role === 'owner' || role === 'admin';
      expect({ role, status: page.res.status, section: page.html.includes('id="sealed"') }).toEqual({ role, status: manager ? 200 : 403, section: manager });
      // A crafted post with a token from a page the role may open.
      await client.get('/dashboard/forms');
      const res = await client.post(`/dashboard/forms/${form.id}/sealed/unseal`, {});
      expect({ role, status: res.res.status }).toEqual({ role, status: manager ? 200 : 403 });
      if (manager) await t.services.forms.addSealedRecipient(form.id, { recipient });
    }
    expect((await t.services.forms.getForm(form.id)).sealed).toEqual({ recipients: [{ recipient, label: null }] });
  });
});
