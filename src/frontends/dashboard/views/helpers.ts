import { escapeHtml } from '../../../platform/lib/html.js';
import { UNKNOWN_COUNTRY } from '../../../platform/lib/text.js';
import { formatLocalTime, UTC } from '../../../platform/lib/time-zone.js';
import type { DailyCount } from '../../../features/submissions/submission.types.js';

/**
 * A timestamp on the viewer's wall clock with the zone's short name ("23 Nov 2026, 11:04 PST"),
 * the UTC instant in `datetime` and, outside UTC, as a tooltip.
 */
export function timeTag(zone: string, iso: string | null | undefined, fallback = '—'): string {
  if (!iso) return escapeHtml(fallback);
  const title = zone === UTC ? '' : ` title="${escapeHtml(formatLocalTime(UTC, iso))}"`;
  return `<time datetime="${escapeHtml(iso)}"${title}>${escapeHtml(formatLocalTime(zone, iso))}</time>`;
}

/** Country code with the meaning of XX spelled out. */
export function countryTag(code: string): string {
  if (code === UNKNOWN_COUNTRY) return '<abbr title="Unknown: a private, loopback or unlisted address">XX (unknown)</abbr>';
  return escapeHtml(code);
}

const CHART_WIDTH = 600;
const CHART_HEIGHT = 140;

/**
 * Submissions per day as stacked bars (inbox below, spam on top), drawn here as inline SVG: no
 * script and no CDN, and the numbers stay readable to screen readers through <title>.
 */
export function dailyChartSvg(days: DailyCount[]): string {
  const highest = Math.max(0, ...days.map((d) => d.inbox + d.spam));
  // The scale needs a non-zero top; the label says what is true (a form may have older submissions).
  const max = Math.max(1, highest);
  const slot = CHART_WIDTH / days.length;
  const bar = Math.max(2, slot - 4);
  const scale = (n: number) => (n / max) * (CHART_HEIGHT - 20);
  const bars = days
    .map((d, i) => {
      const x = (i * slot + (slot - bar) / 2).toFixed(1);
      const inboxH = scale(d.inbox);
      const spamH = scale(d.spam);
      const label = `${d.day}: ${d.inbox} inbox, ${d.spam} spam`;
      return `<g class="day" data-day="${d.day}" data-inbox="${d.inbox}" data-spam="${d.spam}"><title>${escapeHtml(label)}</title>` +
        `<rect x="${x}" y="${(CHART_HEIGHT - inboxH).toFixed(1)}" width="${bar.toFixed(1)}" height="${inboxH.toFixed(1)}" fill="#2453d4"></rect>` +
        `<rect x="${x}" y="${(CHART_HEIGHT - inboxH - spamH).toFixed(1)}" width="${bar.toFixed(1)}" height="${spamH.toFixed(1)}" fill="#e0a030"></rect></g>`;
    })
    .join('');
  const first = days[0]?.day ?? '';
  const last = days[days.length - 1]?.day ?? '';
  // The SVG stretches to the card's width; its labels are HTML so they never stretch with it.
  return `<svg class="chart" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="Submissions per day from ${first} to ${last}" preserveAspectRatio="none">` +
    `<line x1="0" y1="${CHART_HEIGHT - 0.5}" x2="${CHART_WIDTH}" y2="${CHART_HEIGHT - 0.5}" stroke="#cfd4dc"></line>${bars}</svg>` +
    `<div class="chart-axis muted"><span>${first}</span><span class="chart-highest">${highest === 0 ? `no submissions in these ${days.length} days` : `highest day: ${highest}`}</span><span>${last}</span></div>`;
}

/** The templates' helpers, times drawn in the viewer's zone. */
export function viewHelpers(zone: string) {
  return { timeTag: (iso: string | null | undefined, fallback?: string) => timeTag(zone, iso, fallback), countryTag, dailyChartSvg };
}
