import { describe, expect, it } from 'vitest';
import {
  canonicalTimeZone,
  formatTime,
  localDay,
  nextCalendarDay,
  offsetMs,
  startOfLocalDay,
  UTC,
  zoneAbbreviation,
} from '../../src/platform/lib/time-zone.js';

const HOUR = 3_600_000;
const at = (iso: string) => Date.parse(iso);

describe('canonicalTimeZone', () => {
  it('gives the canonical name of a zone Node knows, whatever its case', () => {
    expect(canonicalTimeZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('europe/berlin')).toBe('Europe/Berlin');
    expect(canonicalTimeZone('Etc/UTC')).toBe(UTC);
    expect(canonicalTimeZone('UTC')).toBe(UTC);
  });

  it('refuses without throwing what a cookie could carry that is no zone', () => {
    for (const value of ['Mars/Olympus', '', ' Europe/Berlin', 'Europe/Berlin\n', '../../etc/passwd', `A${'b'.repeat(64)}`, '1Europe/Berlin', 'Europe Berlin']) {
      expect(canonicalTimeZone(value), JSON.stringify(value)).toBeUndefined();
    }
    for (const value of [undefined, null, 42, ['Europe/Berlin'], { zone: 'UTC' }]) expect(canonicalTimeZone(value)).toBeUndefined();
  });
});

describe('offsetMs and localDay', () => {
  it('follows daylight saving time and zones with half and quarter hours', () => {
    expect(offsetMs('America/Los_Angeles', at('2026-01-15T12:00:00Z'))).toBe(-8 * HOUR);
    expect(offsetMs('America/Los_Angeles', at('2026-07-15T12:00:00Z'))).toBe(-7 * HOUR);
    expect(offsetMs('Asia/Kolkata', at('2026-01-15T12:00:00Z'))).toBe(5.5 * HOUR);
    expect(offsetMs('Asia/Kathmandu', at('2026-01-15T12:00:00Z'))).toBe(5.75 * HOUR);
    expect(offsetMs(UTC, at('2026-01-15T12:34:56.789Z'))).toBe(0);
  });

  it('puts an instant on the calendar day of the zone, to the millisecond', () => {
    expect(localDay('America/Los_Angeles', at('2026-01-01T07:59:59.999Z'))).toBe('2025-12-31');
    expect(localDay('America/Los_Angeles', at('2026-01-01T08:00:00.000Z'))).toBe('2026-01-01');
    expect(localDay('Pacific/Kiritimati', at('2026-01-01T10:00:00Z'))).toBe('2026-01-02');
    expect(localDay(UTC, at('2026-02-28T23:59:59.999Z'))).toBe('2026-02-28');
  });
});

describe('startOfLocalDay', () => {
  it('is local midnight on an ordinary day and on the days clocks change later in the night', () => {
    expect(startOfLocalDay(UTC, '2026-05-01')).toBe(at('2026-05-01T00:00:00Z'));
    expect(startOfLocalDay('Europe/Berlin', '2026-03-29')).toBe(at('2026-03-28T23:00:00Z'));
    expect(startOfLocalDay('Europe/Berlin', '2026-03-30')).toBe(at('2026-03-29T22:00:00Z'));
    expect(startOfLocalDay('America/Los_Angeles', '2026-11-01')).toBe(at('2026-11-01T07:00:00Z'));
    expect(startOfLocalDay('Asia/Kolkata', '2027-01-01')).toBe(at('2026-12-31T18:30:00Z'));
  });

  it('is the first minute that exists where the change skips midnight', () => {
    // Chile and Cuba move their clocks from 00:00 to 01:00.
    for (const [zone, day, first] of [
      ['America/Santiago', '2026-09-06', '2026-09-06T04:00:00Z'],
      ['America/Havana', '2026-03-08', '2026-03-08T05:00:00Z'],
    ] as const) {
      const start = startOfLocalDay(zone, day);
      expect(start, zone).toBe(at(first));
      expect(localDay(zone, start)).toBe(day);
      expect(localDay(zone, start - 60_000)).toBe(nextCalendarDay(day, -1));
    }
  });
});

describe('nextCalendarDay', () => {
  it('steps over month, year and leap-day boundaries, either way', () => {
    expect(nextCalendarDay('2026-12-31')).toBe('2027-01-01');
    expect(nextCalendarDay('2024-02-28')).toBe('2024-02-29');
    expect(nextCalendarDay('2026-02-28')).toBe('2026-03-01');
    expect(nextCalendarDay('2026-03-01', -1)).toBe('2026-02-28');
    expect(nextCalendarDay('2026-01-30', 7)).toBe('2026-02-06');
  });
});

describe('zoneAbbreviation and formatTime', () => {
  it('names a zone by its letters where English has them, else by its offset', () => {
    expect(zoneAbbreviation(UTC, at('2026-01-15T12:00:00Z'))).toBe('UTC');
    expect(zoneAbbreviation('Europe/Berlin', at('2026-01-15T12:00:00Z'))).toBe('CET');
    expect(zoneAbbreviation('Europe/Berlin', at('2026-07-15T12:00:00Z'))).toBe('CEST');
    expect(zoneAbbreviation('Asia/Kolkata', at('2026-07-15T12:00:00Z'))).toBe('IST');
    expect(zoneAbbreviation('Australia/Sydney', at('2026-01-15T12:00:00Z'))).toBe('AEDT');
    expect(zoneAbbreviation('Asia/Tokyo', at('2026-01-15T12:00:00Z'))).toBe('GMT+9');
  });

  it("shows the zone's wall clock to the minute, with the zone's name", () => {
    expect(formatTime('Europe/Berlin', '2026-12-02T13:03:59.999Z')).toBe('2 Dec 2026, 14:03 CET');
    expect(formatTime(UTC, '2026-12-02T19:04:00.000Z')).toBe('2 Dec 2026, 19:04 UTC');
    expect(formatTime('Asia/Kolkata', '2026-12-31T18:29:59Z')).toBe('31 Dec 2026, 23:59 IST');
    expect(formatTime('Asia/Kolkata', '2026-12-31T18:30:00Z')).toBe('1 Jan 2027, 00:00 IST');
  });

  it('changes name and hour across a daylight-saving change, minute by minute', () => {
    expect(formatTime('America/Los_Angeles', '2026-03-08T09:59:00Z')).toBe('8 Mar 2026, 01:59 PST');
    expect(formatTime('America/Los_Angeles', '2026-03-08T10:00:00Z')).toBe('8 Mar 2026, 03:00 PDT');
    // The same minute in two zones is not mixed up by the memo.
    expect(formatTime('Europe/Berlin', '2026-03-08T10:00:00Z')).toBe('8 Mar 2026, 11:00 CET');
  });

  it('gives back a text that is no time as it came', () => {
    expect(formatTime(UTC, 'not a time')).toBe('not a time');
    expect(formatTime(UTC, '')).toBe('');
  });
});
