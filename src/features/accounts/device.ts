import { UAParser } from 'ua-parser-js';

/** "Chrome 120 on macOS 14" from a User-Agent header, or a plain "Unknown device". */
export function describeDevice(userAgent: string | null): string {
  if (!userAgent) return 'Unknown device';
  const { browser, os } = new UAParser(userAgent).getResult();
  const major = browser.version?.split('.')[0];
  const browserText = browser.name ? `${browser.name}${major ? ` ${major}` : ''}` : undefined;
  const osText = os.name ? `${os.name}${os.version ? ` ${os.version}` : ''}` : undefined;
  if (browserText && osText) return `${browserText} on ${osText}`;
  return browserText ?? osText ?? 'Unknown device';
}
