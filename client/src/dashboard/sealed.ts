// The dashboard's sealed-form tools, all in the browser (served at /dashboard/assets/sealed.js):
// making an identity, keeping it under a passphrase, and opening sealed submissions to show,
// search and export them. No secret and no opened field is ever sent to the server.
import { decryptedCsv, valueText, type OpenedRow } from './csv.js';
import { STORE_KEY, identitiesOf, makeIdentity, openSealed, protectKeyFile, unprotectKeyFile } from './keys.js';

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T | null;

function say(id: string, text: string, kind: 'ok' | 'error' = 'ok'): void {
  const region = byId(id);
  if (!region) return;
  region.textContent = text;
  region.className = kind === 'error' ? 'error' : 'muted';
}

function stored(): string | null {
  try {
    return window.localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

/** A file the browser saves, made from text here: never a round trip through the server. */
function downloadLink(link: HTMLAnchorElement, text: string, type: string): void {
  if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
  link.href = URL.createObjectURL(new Blob([text], { type }));
}

function keyMaker(): void {
  const maker = byId('seal-keymaker');
  const button = byId<HTMLButtonElement>('seal-make-key');
  if (!maker || !button) return;
  let keyFile = '';
  button.addEventListener('click', async () => {
    button.disabled = true;
    try {
      const made = await makeIdentity();
      keyFile = made.keyFile;
      byId('seal-new-recipient')!.textContent = made.recipient;
      downloadLink(byId<HTMLAnchorElement>('seal-key-download')!, made.keyFile, 'text/plain');
      byId('seal-new-key')!.hidden = false;
      // The public half goes into the form that adds a recipient; the owner still saves it.
      const target = byId<HTMLInputElement>(maker.getAttribute('data-fill') || '');
      if (target) target.value = made.recipient;
      say('seal-keymaker-status', 'Key made. Download key.txt and keep it safe: without it (or the copy kept in this browser) sealed submissions cannot be read. Then add the public key as a recipient.');
    } catch (err) {
      say('seal-keymaker-status', `The key could not be made: ${(err as Error).message}`, 'error');
    } finally {
      button.disabled = false;
    }
  });
  byId('seal-keep')?.addEventListener('click', async () => {
    const passphrase = byId<HTMLInputElement>('seal-keep-passphrase')!.value;
    try {
      window.localStorage.setItem(STORE_KEY, await protectKeyFile(keyFile, passphrase));
      say('seal-keymaker-status', 'Kept in this browser, encrypted with the passphrase.');
    } catch (err) {
      say('seal-keymaker-status', (err as Error).message, 'error');
    }
  });
}

interface Sealed {
  element: HTMLElement;
  row: HTMLElement | null;
  armored: string;
  opened?: OpenedRow;
}

function sealedOnPage(): Sealed[] {
  return Array.prototype.map.call(document.querySelectorAll<HTMLElement>('[data-sealed]'), (element: HTMLElement) => ({
    element,
    row: element.closest('tr'),
    armored: element.getAttribute('data-sealed') || '',
  })) as Sealed[];
}

/** Shows opened fields: a list row gets the preview line, the submission page its field table. */
function show(item: Sealed, fields: Record<string, unknown>): void {
  const el = item.element;
  if (el instanceof HTMLTableElement) {
    el.textContent = '';
    for (const [name, value] of Object.entries(fields)) {
      const tr = el.insertRow();
      const th = document.createElement('th');
      th.textContent = name;
      tr.appendChild(th);
      tr.insertCell().textContent = valueText(value);
    }
  } else {
    el.textContent = Object.entries(fields)
      .map(([name, value]) => `${name}: ${valueText(value)}`)
      .join(' · ');
  }
  el.setAttribute('data-opened', '');
}

function opener(): void {
  const panel = byId('seal-opener');
  if (!panel) return;
  const items = sealedOnPage();
  const storedCopy = stored();
  if (storedCopy) byId('seal-stored')!.hidden = false;

  const open = async (identities: string[]) => {
    if (identities.length === 0) throw new Error('No age identity (AGE-SECRET-KEY-…) in that key.');
    let opened = 0;
    for (const item of items) {
      try {
        const fields = await openSealed(item.armored, identities);
        const holder = item.row || item.element;
        item.opened = { id: holder.getAttribute('data-id') || '', createdAt: holder.getAttribute('data-created') || '', fields };
        show(item, fields);
        opened++;
      } catch {
        item.element.setAttribute('data-unopened', '');
        if (!(item.element instanceof HTMLTableElement)) item.element.textContent = 'Sealed: not to this key.';
      }
    }
    const missed = items.length - opened;
    say('seal-status', `Decrypted ${opened} of ${items.length} sealed submission${items.length === 1 ? '' : 's'} in this browser.${missed > 0 ? ` ${missed} ${missed === 1 ? 'is' : 'are'} not sealed to this key.` : ''}`, opened === 0 && items.length > 0 ? 'error' : 'ok');
    const tools = byId('seal-tools');
    if (tools && opened > 0) tools.hidden = false;
  };
  const attempt = (load: () => Promise<string[]>) =>
    load().then(open).catch((err: unknown) => say('seal-status', (err as Error).message, 'error'));

  byId<HTMLInputElement>('seal-key-file')?.addEventListener('change', (event) => {
    const file = (event.target as HTMLInputElement).files?.[0];
    if (file) void attempt(async () => identitiesOf(await file.text()));
  });
  byId('seal-use-stored')?.addEventListener('click', () => {
    const passphrase = byId<HTMLInputElement>('seal-passphrase')!.value;
    say('seal-status', 'Unlocking the key kept in this browser…');
    void attempt(async () => {
      try {
        return identitiesOf(await unprotectKeyFile(stored() || '', passphrase));
      } catch {
        throw new Error('That passphrase does not unlock the key kept in this browser.');
      }
    });
  });
  byId<HTMLInputElement>('seal-search')?.addEventListener('input', (event) => {
    const query = (event.target as HTMLInputElement).value.trim().toLowerCase();
    for (const item of items) {
      if (!item.row || item.element instanceof HTMLTableElement) continue;
      const text = item.opened ? (item.element.textContent || '').toLowerCase() : '';
      item.row.hidden = query !== '' && text.indexOf(query) < 0;
    }
  });
  byId('seal-export')?.addEventListener('click', () => {
    const rows = items.filter((i) => i.opened && !(i.row && i.row.hidden)).map((i) => i.opened!);
    const link = document.createElement('a');
    downloadLink(link, decryptedCsv(rows), 'text/csv;charset=utf-8');
    link.download = `${(panel.getAttribute('data-name') || 'submissions').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '') || 'submissions'}-decrypted.csv`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    say('seal-status', `Exported ${rows.length} decrypted submission${rows.length === 1 ? '' : 's'} (made in this browser).`);
  });
}

keyMaker();
opener();
