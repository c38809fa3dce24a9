/**
 * IANA time zones for what people read: the dashboard shows times, date filters and chart days
 * in the viewer's zone, and emails and chat messages say them the same way (formatTime). Stored
 * times stay ISO 8601 UTC.
 */
import { BoundedMemo } from './bounded-memo.js';

export const UTC = 'UTC';

const HOUR_MS = 3_600_000;
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

// One formatter per zone and purpose. Only zones Intl accepted are cached, so the maps hold at
// most the ~600 IANA names whatever a cookie says.
const partsFormatters = new Map<string, Intl.DateTimeFormat>();
const shortNameFormatters = new Map<string, Intl.DateTimeFormat>();
// Names already checked (Intl is case-insensitive, so a cookie could vary the case: capped).
const checkedNames = new Map<string, string>();

function cached(cache: Map<string, Intl.DateTimeFormat>, zone: string, make: () => Intl.DateTimeFormat): Intl.DateTimeFormat {
  let formatter = cache.get(zone);
  if (!formatter) cache.set(zone, (formatter = make()));
  return formatter;
}

/**
 * The zone's canonical name when `value` names an IANA time zone this Node knows ("Etc/UTC" →
 * "UTC"), else undefined. Anything else (garbage from a cookie) is refused without throwing.
 */
export function canonicalTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string' || !ZONE_NAME.test(value)) return undefined;
  const known = checkedNames.get(value);
  if (known) return known;
  try {
    const canonical = new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
    if (checkedNames.size < 2000) checkedNames.set(value, canonical);
    return canonical;
  } catch {
    return undefined;
  }
}

interface WallClock {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

function wallClock(zone: string, ms: number): WallClock {
  const formatter = cached(partsFormatters, zone, () =>
    new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    }),
  );
  const p = partsOf(formatter, ms);
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second) };
}

/** The formatter's parts at an instant by type ("hour" → "07"), in one formatToParts call (each costs several µs). */
function partsOf(formatter: Intl.DateTimeFormat, ms: number): Partial<Record<Intl.DateTimeFormatPartTypes, string>> {
  const parts: Partial<Record<Intl.DateTimeFormatPartTypes, string>> = {};
  for (const part of formatter.formatToParts(ms)) if (part.type !== 'literal') parts[part.type] = part.value;
  return parts;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const dayText = (c: WallClock) => `${pad(c.year, 4)}-${pad(c.month)}-${pad(c.day)}`;

/** The zone's offset from UTC at an instant, in ms (Los Angeles in winter: -8 h). */
export function offsetMs(zone: string, ms: number): number {
  const c = wallClock(zone, ms);
  return Date.UTC(c.year, c.month - 1, c.day, c.hour, c.minute, c.second) - Math.floor(ms / 1000) * 1000;
}

/** The calendar day (YYYY-MM-DD) an instant falls on in the zone. */
export function localDay(zone: string, ms: number): string {
  return dayText(wallClock(zone, ms));
}

/**
 * The first instant (UTC ms) of a calendar day (YYYY-MM-DD) in the zone: usually its local
 * midnight; where a daylight-saving change skips midnight, the first minute that exists.
 */
export function startOfLocalDay(zone: string, day: string): number {
  const asUtc = Date.parse(`${day}T00:00:00.000Z`);
  // Two passes: the offset at the first guess may differ from the one at midnight (a change that day).
  let ms = asUtc - offsetMs(zone, asUtc);
  ms = asUtc - offsetMs(zone, ms);
  const c = wallClock(zone, ms);
  if (dayText(c) === day && c.hour === 0 && c.minute === 0 && c.second === 0) return ms;
  // No local midnight that day: the first minute whose local day is `day` (offsets lie within ±15 h).
  let low = asUtc - 15 * HOUR_MS;
  let high = asUtc + 15 * HOUR_MS;
  while (high - low > 60_000) {
    const mid = low + Math.floor((high - low) / 120_000) * 60_000;
    if (localDay(zone, mid) >= day) high = mid;
    else low = mid;
  }
  return high;
}

/** The day after a calendar day, both YYYY-MM-DD (calendar arithmetic, no zone involved). */
export function nextCalendarDay(day: string, by = 1): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + by * 86_400_000).toISOString().slice(0, 10);
}

// English locales that know a zone's lettered name where en-US only has "GMT+1" (CET in en-GB,
// IST in en-IN, AEDT in en-AU). The first lettered name wins; an offset is the fallback.
const NAME_LOCALES = ['en-US', 'en-GB', 'en-IN', 'en-AU'];

/** The zone's short name at an instant: "UTC", "CET", "PST", "IST", "AEDT"; "GMT+9" where English has no letters for it. */
export function zoneAbbreviation(zone: string, ms: number): string {
  if (zone === UTC) return UTC;
  let fallback: string | undefined;
  for (const locale of NAME_LOCALES) {
    const formatter = cached(shortNameFormatters, `${locale} ${zone}`, () => new Intl.DateTimeFormat(locale, { timeZone: zone, timeZoneName: 'short' }));
    const name = formatter.formatToParts(ms).find((p) => p.type === 'timeZoneName')?.value;
    if (!name) continue;
    if (!/^GMT[+-]/.test(name)) return name;
    fallback ??= name;
  }
  return fallback ?? zone;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * The one way a person is shown a time, on the dashboard, in emails and in chat messages: the
 * zone's wall clock with the zone's name, "2 Dec 2026, 14:03 CET". Machine formats (the API,
 * CSV and NDJSON exports, `datetime` attributes) keep ISO 8601 UTC.
 */
export function formatTime(zone: string, iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return byMinute.get(`${zone} ${Math.floor(ms / 60_000)}`, () => {
    const c = wallClock(zone, ms);
    return `${c.day} ${MONTHS[c.month - 1]} ${c.year}, ${pad(c.hour)}:${pad(c.minute)} ${zoneAbbreviation(zone, ms)}`;
  });
}

/** The dashboard's name for formatTime (a page draws many times: each zone and minute is formatted once). */
export const formatLocalTime = formatTime;

// Emails under a steady flow say the same few minutes over and over: each zone and minute is put
// in words once (formatting each anew takes ~2% of the event loop at 400 emails/s). A minute is exact:
// every zone's offset today is a whole number of minutes.
const byMinute = new BoundedMemo<string, string>(512);

/** Emails' and chat's name for formatTime: "2 Dec 2026, 19:04 UTC". */
export function formatTimeInWords(zone: string, iso: string): string {
  return formatTime(zone, iso);
}
