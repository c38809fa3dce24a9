import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../src/platform/db/database.js';
import { canonicalTimeZone, formatLocalTime, formatTime, formatTimeInWords, localDay, startOfLocalDay } from '../../src/platform/lib/time-zone.js';
import type { Services } from '../../src/services.js';
import { createOwner, insertSubmissions, useMigratedDatabase } from '../helpers/factories.js';

let handle: DatabaseHandle;
let services: Services;
useMigratedDatabase((opened) => ({ handle, services } = opened));

const LA = 'America/Los_Angeles';
const ids = (page: { submissions: Array<{ id: string }> }) => page.submissions.map((s) => s.id);

describe('time zones: the helpers', () => {
  it('accepts IANA names only, and knows where days start, daylight-saving changes included', () => {
    expect(canonicalTimeZone('America/Los_Angeles')).toBe(LA);
    expect(canonicalTimeZone('Etc/UTC')).toBe('UTC');
    for (const bad of ['Mars/Olympus', '', 'x'.repeat(65), 'UTC; path=/', '../etc', 42, undefined]) expect(canonicalTimeZone(bad)).toBeUndefined();
    expect(new Date(startOfLocalDay(LA, '2026-11-23')).toISOString()).toBe('2026-11-23T08:00:00.000Z');
    expect(new Date(startOfLocalDay(LA, '2026-03-09')).toISOString()).toBe('2026-03-09T07:00:00.000Z'); // PDT from 8 March
    expect(new Date(startOfLocalDay('Asia/Kolkata', '2026-03-09')).toISOString()).toBe('2026-03-08T18:30:00.000Z');
    // Havana skips midnight when daylight saving starts: its day begins at 01:00.
    expect(new Date(startOfLocalDay('America/Havana', '2026-03-08')).toISOString()).toBe('2026-03-08T05:00:00.000Z');
    expect(localDay(LA, Date.parse('2026-11-24T03:04:00.000Z'))).toBe('2026-11-23');
    expect(formatLocalTime(LA, '2026-11-24T03:04:00.000Z')).toBe('23 Nov 2026, 19:04 PST');
    expect(formatLocalTime('UTC', '2026-11-24T03:04:00.000Z')).toBe('24 Nov 2026, 03:04 UTC');
    // One rule for dashboard, emails and chat, with the zone's lettered name where English has one.
    expect(formatTime('Europe/Berlin', '2026-12-02T13:03:00.000Z')).toBe('2 Dec 2026, 14:03 CET');
    expect(formatTime('Europe/Berlin', '2026-07-02T12:03:00.000Z')).toBe('2 Jul 2026, 14:03 CEST');
    expect(formatTime('Asia/Tokyo', '2026-09-02T12:03:00.000Z')).toBe('2 Sep 2026, 21:03 GMT+9');
    expect(formatLocalTime).toBe(formatTime);
    expect(formatTimeInWords('UTC', '2026-11-24T19:04:00.000Z')).toBe('24 Nov 2026, 19:04 UTC');
  });

  it('puts each zone and minute in words once, and tells minutes and zones apart', () => {
    // Asked in this order, a cache keyed too coarsely (the hour, the zone alone) would repeat an earlier answer.
    expect(formatTimeInWords('UTC', '2026-11-24T19:04:59.999Z')).toBe('24 Nov 2026, 19:04 UTC');
    expect(formatTimeInWords('UTC', '2026-11-24T19:05:00.000Z')).toBe('24 Nov 2026, 19:05 UTC');
    expect(formatTimeInWords(LA, '2026-11-24T19:05:30.000Z')).toBe('24 Nov 2026, 11:05 PST');
    expect(formatTimeInWords('Asia/Kolkata', '2026-11-24T19:05:30.000Z')).toBe('25 Nov 2026, 00:35 IST');
    // Daylight saving ends at 09:00 UTC on 1 November 2026 in Los Angeles: a minute apart, an hour apart on the clock.
    expect(formatTimeInWords(LA, '2026-11-01T08:59:30.000Z')).toBe('1 Nov 2026, 01:59 PDT');
    expect(formatTimeInWords(LA, '2026-11-01T09:00:30.000Z')).toBe('1 Nov 2026, 01:00 PST');
    expect(formatTimeInWords('UTC', 'not a time')).toBe('not a time');
    // Many more minutes than the cache holds still read right.
    for (let minute = 0; minute < 600; minute += 7) {
      const iso = new Date(Date.UTC(2026, 10, 24, 0, minute)).toISOString();
      expect(formatTimeInWords('UTC', iso)).toBe(`24 Nov 2026, ${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')} UTC`);
    }
  });
});

describe('time zones: date filters and chart days in the viewer\'s zone', () => {
  it('From/To are days in the viewer\'s zone, for the list and for a search', async () => {
    const { account, form } = await createOwner(services);
    // 03:04 UTC on 24 November is 19:04 on 23 November in Los Angeles.
    const [evening, morning] = await insertSubmissions(services, form.id, [
      { createdAt: '2026-11-24T03:04:00.000Z', payload: { message: 'late refund' } },
      { createdAt: '2026-11-24T09:00:00.000Z', payload: { message: 'early refund' } },
    ]);
    const browse = (input: Parameters<Services['submissionBrowser']['browse']>[2]) => services.submissionBrowser.browse(account.id, form.id, input).then(ids);
    for (const q of ['', 'refund']) {
      expect(await browse({ q, from: '2026-11-23', to: '2026-11-23', timeZone: LA })).toEqual([evening]);
      expect(await browse({ q, from: '2026-11-24', to: '2026-11-24', timeZone: LA })).toEqual([morning]);
      expect(await browse({ q, from: '2026-11-23', to: '2026-11-23', timeZone: 'UTC' })).toEqual([]);
      expect(await browse({ q, from: '2026-11-24', to: '2026-11-24' })).toEqual([morning, evening]); // UTC by default
      expect(await browse({ q, to: '2026-11-23', timeZone: LA })).toEqual([evening]);
    }
  });

  it('the chart adds the hours up into the viewer\'s days, half-hour zones included, and follows spam marks and deletes', async () => {
    const { account, form } = await createOwner(services);
    const now = new Date('2026-11-24T19:30:00.000Z');
    const inserted = await insertSubmissions(services, form.id, [
      { createdAt: '2026-11-24T03:04:00.000Z' }, // LA 23 Nov; Kolkata 24 Nov 08:34
      { createdAt: '2026-11-23T18:14:00.000Z' }, // Kolkata 23 Nov 23:44; Kathmandu (+5:45) 23 Nov 23:59
      { createdAt: '2026-11-23T18:45:00.000Z', isSpam: true }, // Kolkata 24 Nov 00:15 (same UTC hour as the one before)
      { createdAt: '2026-11-23T18:20:00.000Z' }, // Kathmandu (+5:45) 24 Nov 00:05; Kolkata 23 Nov 23:50
    ]);
    const chart = async (zone: string) => {
      const days = await services.submissionBrowser.dailyCounts(account.id, form.id, 30, zone, now);
      expect(days).toHaveLength(30);
      return Object.fromEntries(days.filter((d) => d.inbox + d.spam > 0).map((d) => [d.day, [d.inbox, d.spam]]));
    };
    expect(await chart('UTC')).toEqual({ '2026-11-23': [2, 1], '2026-11-24': [1, 0] });
    expect(await chart(LA)).toEqual({ '2026-11-23': [3, 1] });
    expect(await chart('Asia/Kolkata')).toEqual({ '2026-11-23': [2, 0], '2026-11-24': [1, 1] });
    expect(await chart('Asia/Kathmandu')).toEqual({ '2026-11-23': [1, 0], '2026-11-24': [2, 1] });
    // The last day shown is today in the zone: Kiritimati (+14) is already on 25 November.
    expect((await services.submissionBrowser.dailyCounts(account.id, form.id, 30, 'Pacific/Kiritimati', now)).at(-1)!.day).toBe('2026-11-25');

    await handle.db.updateTable('submissions').set({ is_spam: 1 }).where('id', '=', inserted[1]!).execute();
    expect(await chart('Asia/Kolkata')).toEqual({ '2026-11-23': [1, 1], '2026-11-24': [1, 1] });
    expect(await services.lifecycle.deleteSubmissions(account.id, form.id, [inserted[2]!])).toBe(1);
    expect(await chart('Asia/Kolkata')).toEqual({ '2026-11-23': [1, 1], '2026-11-24': [1, 0] });
    expect(await chart('UTC')).toEqual({ '2026-11-23': [1, 1], '2026-11-24': [1, 0] });
  });
});
