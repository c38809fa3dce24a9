import { resolve } from 'node:path';
import type { Config } from '../config.js';
import { VERSION } from '../version.js';
import { describeDatabase, describeRedis } from './describe.js';

export interface BannerFacts {
  /** The address the server listens on, e.g. http://127.0.0.1:3000. */
  listenUrl: string;
  /** The Prometheus listener, when METRICS_PORT is set. */
  metricsUrl: string | undefined;
  /** Whether Redis answered at start (undefined when REDIS_URL is unset). */
  redisReachable: boolean | undefined;
  /** SMTP_URL is set. */
  emailOn: boolean;
}

export const listeningLine = (listenUrl: string): string => `Formgate ${VERSION} listening on ${listenUrl}`;

/** Where uploaded files go: one folder serves one instance unless every instance shares it. */
function filesLine(config: Config): string {
  const { s3, dir } = config.files;
  if (s3) return `Files: S3 bucket ${s3.bucket}${s3.endpoint ? ` at ${new URL(s3.endpoint).host}` : ''}${config.clamdUrl ? ', scanned by clamd' : ''}`;
  return `Files: local folder ${resolve(dir)} (several instances need FILES_STORAGE=s3 or one shared folder)${config.clamdUrl ? ', scanned by clamd' : ''}`;
}

/** How people sign in to the dashboard: what an operator checks after changing OIDC_* or PASSWORD_LOGIN. */
export function signInLine(config: Config): string {
  const sso = config.oidc ? `single sign-on on (${config.oidc.issuer})` : 'single sign-on off (OIDC_ISSUER not set)';
  const passwords = config.passwordLogin ? 'password log-in on' : 'password log-in off (PASSWORD_LOGIN=false)';
  return `Sign-in: ${passwords}, ${sso}; sign-up ${config.dashboardSignup} (DASHBOARD_SIGNUP)`;
}

/** The first lines an operator reads: where it listens, where the dashboard is, what it uses, how to stop it. */
export function startupBanner(config: Config, facts: BannerFacts): string[] {
  const redis =
    config.redisUrl === undefined
      ? 'Redis: off (REDIS_URL not set; rate limits are counted in this process)'
      : `Redis: on, ${describeRedis(config.redisUrl)}${facts.redisReachable === false ? ' (not answering yet; counting in this process until it does)' : ''}`;
  return [
    listeningLine(facts.listenUrl),
    `Dashboard: ${config.baseUrl}/dashboard (public URL ${config.baseUrl})`,
    `Database: ${describeDatabase(config.databaseUrl)}`,
    redis,
    facts.emailOn ? 'Email: on (SMTP_URL set)' : 'Email: off (SMTP_URL not set; no notification emails)',
    filesLine(config),
    signInLine(config),
    facts.metricsUrl ? `Metrics: ${facts.metricsUrl}` : 'Metrics: off (METRICS_PORT not set)',
    'Stop with Ctrl+C or SIGTERM: requests in progress finish first.',
  ];
}
