/**
 * Deployment knobs of the stack, with their defaults, and how `cdk` context
 * (`-c key=value` or cdk.json "context") maps onto them. Everything is
 * optional: a plain `cdk deploy` gets the documented defaults.
 */
import { resolve as resolvePath } from 'node:path';
import type { Node } from 'constructs';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { DEFAULT_PUBLIC_CLIENT_LIMIT } from '../shared/service/http/throttling';
import { DEFAULT_TEAM_QUOTA } from '../shared/service/identity/throttle-quota';
import { ECOSYSTEMS } from '../shared/service/matching/ecosystems';
import { trimTrailing } from '../shared/service/text';
import { corpusRefreshScheduleOf, osvEcosystemsOf } from './corpus-settings';
import { notifyEmailOf, type NotifyEmailSettings } from './notify-email';

export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

export interface ThrottleSettings {
  /** Steady-state requests per second. */
  rateLimit: number;
  /** Bucket size for bursts. */
  burstLimit: number;
}

/** Where the scheduled corpus refresh downloads from (docs/operations.md "Corpus refresh"). */
export interface CorpusFeedSettings {
  /**
   * OSV ecosystems, spelled as OSV spells them; each is `<osvBaseUrl>/<ecosystem>/` (`modified_id.csv`, `<ID>.json`,
   * `all.zip`). Default: every ecosystem the matcher supports.
   */
  osvEcosystems: readonly string[];
  /** OSV's export bucket over HTTPS, or a mirror with the same layout. */
  osvBaseUrl: string;
  /** CISA KEV catalog JSON; empty = no KEV refresh. */
  kevUrl: string;
  /** FIRST EPSS daily scores (CSV or CSV.gz); empty = no EPSS refresh. */
  epssUrl: string;
}

export const DEFAULT_CORPUS_FEEDS: CorpusFeedSettings = {
  osvEcosystems: [...ECOSYSTEMS],
  osvBaseUrl: 'https://osv-vulnerabilities.storage.googleapis.com',
  kevUrl: 'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
  epssUrl: 'https://epss.empiricalsecurity.com/epss_scores-current.csv.gz',
};

/** The corpus refresh's EventBridge schedule: hourly, so a new advisory reaches the findings within the hour. */
export const DEFAULT_CORPUS_REFRESH_SCHEDULE = 'rate(1 hour)';

export interface VexdeskSettings {
  /**
   * Object Lock COMPLIANCE retention of every disclosure snapshot. Nobody, the
   * account root included, can delete or overwrite a snapshot before it
   * expires, and it can never be shortened, so choose deliberately.
   * Default 3650 days (10 years): disclosures are public security records.
   */
  disclosureRetentionDays: number;
  /** CloudWatch retention of function and access logs. Default 30 days. */
  logRetention: RetentionDays;
  logLevel: LogLevel;
  /** Stage-wide throttling (every method). Default 100 rps, burst 200. */
  throttle: ThrottleSettings;
  /** Tighter per-method throttling of the anonymous disclosure routes. Default 20 rps, burst 40. */
  publicThrottle: ThrottleSettings;
  /** X-Ray tracing of the API stage and the functions. Default off. */
  tracing: boolean;
  /**
   * Default per-team throttle: the stack's usage plan, which holds every team's
   * usage-plan key unless an operator gave the team its own quota
   * (`admin team quota set`). Default 50 rps, burst 100.
   */
  teamThrottle: ThrottleSettings;
  /**
   * Requests per client IP per 60 s (PUBLIC_CLIENT_WINDOW_SECONDS) on the anonymous
   * disclosure routes, enforced by the stage's WAF web ACL. Default 300.
   */
  publicClientLimit: number;
  /**
   * The service's public origin (PUBLIC_BASE_URL): console, API, sign-in callback and the links in
   * generated documents, e.g. `https://vex.example.com`. Default (undefined): the stack's CloudFront
   * distribution, `https://<id>.cloudfront.net` (docs/console-hosting.md). With `certificateArn` the
   * distribution serves this domain itself; without, whatever fronts it must forward to the distribution.
   */
  publicBaseUrl: string | undefined;
  /** ACM certificate (in us-east-1, as CloudFront requires) for `publicBaseUrl`'s host. Default: none. */
  certificateArn: string | undefined;
  /** An existing CLOUDFRONT-scope AWS WAF web ACL (created in us-east-1) for the distribution. Default: none. */
  cloudFrontWebAclArn: string | undefined;
  /**
   * A directory holding the built web console (index.html, assets/). Default (undefined): synth runs
   * `npm run build:web` and deploys web/dist (lib/console-hosting.ts).
   */
  consoleAssets: string | undefined;
  /**
   * Directory name of the team whose CSAF provider-metadata.json is also served at
   * /.well-known/csaf/provider-metadata.json (CSAF_DEFAULT_PROVIDER; docs/csaf-provider.md). Default: none.
   */
  csafDefaultProvider: string | undefined;
  /** Feeds of the corpus refresh. */
  corpusFeeds: CorpusFeedSettings;
  /** When the corpus refresh runs: an EventBridge `rate(…)` or `cron(…)` expression. Default `rate(1 hour)`. */
  corpusRefreshSchedule: string;
  /**
   * Browser sign-in (docs/sign-in.md): an external OpenID provider's issuer and this service's public
   * (PKCE) client there. Default (undefined): the stack creates a Cognito user pool, hosted domain and client.
   */
  signIn: { issuer: string; clientId: string } | undefined;
  /** Prefix of the Cognito hosted domain (`<prefix>.auth.<region>.amazoncognito.com`); unique per region. Default: from the stack's name. */
  signInDomainPrefix: string | undefined;
  /** Notification e-mail through SES (lib/notify-email.ts). Default (undefined): none, e-mail channels are refused. */
  notifyEmail: NotifyEmailSettings | undefined;
}

export const DEFAULT_SETTINGS: VexdeskSettings = {
  disclosureRetentionDays: 3650,
  logRetention: RetentionDays.ONE_MONTH,
  logLevel: 'INFO',
  throttle: { rateLimit: 100, burstLimit: 200 },
  publicThrottle: { rateLimit: 20, burstLimit: 40 },
  tracing: false,
  teamThrottle: { ...DEFAULT_TEAM_QUOTA },
  publicClientLimit: DEFAULT_PUBLIC_CLIENT_LIMIT,
  publicBaseUrl: undefined,
  certificateArn: undefined,
  cloudFrontWebAclArn: undefined,
  consoleAssets: undefined,
  csafDefaultProvider: undefined,
  corpusFeeds: DEFAULT_CORPUS_FEEDS,
  corpusRefreshSchedule: DEFAULT_CORPUS_REFRESH_SCHEDULE,
  signIn: undefined,
  signInDomainPrefix: undefined,
  notifyEmail: undefined,
};

/** Context keys understood by `settingsFromContext`. */
export const CONTEXT_KEYS = {
  disclosureRetentionDays: 'vexdesk:disclosureRetentionDays',
  logRetentionDays: 'vexdesk:logRetentionDays',
  logLevel: 'vexdesk:logLevel',
  throttleRate: 'vexdesk:throttleRateLimit',
  throttleBurst: 'vexdesk:throttleBurstLimit',
  publicThrottleRate: 'vexdesk:publicThrottleRateLimit',
  publicThrottleBurst: 'vexdesk:publicThrottleBurstLimit',
  tracing: 'vexdesk:tracing',
  teamThrottleRate: 'vexdesk:teamThrottleRateLimit',
  teamThrottleBurst: 'vexdesk:teamThrottleBurstLimit',
  publicClientLimit: 'vexdesk:publicClientLimit',
  publicBaseUrl: 'vexdesk:publicBaseUrl',
  certificateArn: 'vexdesk:certificateArn',
  cloudFrontWebAclArn: 'vexdesk:cloudFrontWebAclArn',
  consoleAssets: 'vexdesk:consoleAssets',
  csafDefaultProvider: 'vexdesk:csafDefaultProvider',
  corpusOsvEcosystems: 'vexdesk:corpusOsvEcosystems',
  corpusOsvBaseUrl: 'vexdesk:corpusOsvBaseUrl',
  corpusKevUrl: 'vexdesk:corpusKevUrl',
  corpusEpssUrl: 'vexdesk:corpusEpssUrl',
  corpusRefreshSchedule: 'vexdesk:corpusRefreshSchedule',
  signInIssuer: 'vexdesk:signInIssuer',
  signInClientId: 'vexdesk:signInClientId',
  signInDomainPrefix: 'vexdesk:signInDomainPrefix',
  notifySesIdentity: 'vexdesk:notifySesIdentity',
  notifySesFrom: 'vexdesk:notifySesFrom',
} as const;

const LOG_LEVELS: readonly LogLevel[] = ['DEBUG', 'INFO', 'WARN', 'ERROR'];

/** Values CloudWatch Logs accepts as a retention period. */
const RETENTION_VALUES = new Set<number>(
  Object.values(RetentionDays).filter((value): value is number => typeof value === 'number'),
);

function positiveInteger(node: Node, key: string, max: number): number | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new Error(`Context ${key} must be an integer between 1 and ${max}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function logRetentionOf(node: Node): RetentionDays | undefined {
  const days = positiveInteger(node, CONTEXT_KEYS.logRetentionDays, 3653);
  if (days === undefined) return undefined;
  if (!RETENTION_VALUES.has(days)) {
    throw new Error(
      `Context ${CONTEXT_KEYS.logRetentionDays} must be a CloudWatch retention period (1, 3, 5, 7, 14, 30, 60, 90, …), got ${days}`,
    );
  }
  return days;
}

function logLevelOf(node: Node): LogLevel | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.logLevel);
  if (raw === undefined) return undefined;
  const level = LOG_LEVELS.find((candidate) => candidate === raw);
  if (!level)
    throw new Error(
      `Context ${CONTEXT_KEYS.logLevel} must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(raw)}`,
    );
  return level;
}

function booleanOf(node: Node, key: string): boolean | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return undefined;
  if (raw === true || raw === 'true') return true;
  if (raw === false || raw === 'false') return false;
  throw new Error(`Context ${key} must be true or false, got ${JSON.stringify(raw)}`);
}

/** WAF rate-based rules take 10 to 2,000,000,000 requests per window. */
function publicClientLimitOf(node: Node): number | undefined {
  const limit = positiveInteger(node, CONTEXT_KEYS.publicClientLimit, 2_000_000_000);
  if (limit !== undefined && limit < 10)
    throw new Error(
      `Context ${CONTEXT_KEYS.publicClientLimit} must be at least 10 (AWS WAF's lowest rate limit), got ${limit}`,
    );
  return limit;
}

/** An http(s) URL without query or fragment; `allowEmpty`: '' turns the feature off. */
function urlOf(node: Node, key: string, options: { allowEmpty: boolean; httpsOnly: boolean }): string | undefined {
  const raw: unknown = node.tryGetContext(key);
  if (raw === undefined) return undefined;
  if (raw === '' && options.allowEmpty) return '';
  const url = typeof raw === 'string' && URL.canParse(raw) ? new URL(raw) : undefined;
  const protocols = options.httpsOnly ? ['https:'] : ['https:', 'http:'];
  if (!url || !protocols.includes(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new Error(
      `Context ${key} must be an ${options.httpsOnly ? 'https' : 'http(s)'} URL without query or fragment${options.allowEmpty ? ' (or "" to turn it off)' : ''}, got ${JSON.stringify(raw)}`,
    );
  }
  return raw as string;
}

function publicBaseUrlOf(node: Node): string | undefined {
  const url = urlOf(node, CONTEXT_KEYS.publicBaseUrl, { allowEmpty: false, httpsOnly: true });
  return url === undefined ? undefined : trimTrailing(url, '/');
}

/** CloudFront takes certificates from ACM in us-east-1 only. */
function certificateArnOf(node: Node, publicBaseUrl: string | undefined): string | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.certificateArn);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^arn:aws[a-z-]*:acm:us-east-1:\d{12}:certificate\/[\w-]+$/.test(raw)) {
    throw new Error(
      `Context ${CONTEXT_KEYS.certificateArn} must be the ARN of an ACM certificate in us-east-1 (CloudFront's region for certificates), got ${JSON.stringify(raw)}`,
    );
  }
  if (publicBaseUrl === undefined)
    throw new Error(
      `Context ${CONTEXT_KEYS.certificateArn} needs ${CONTEXT_KEYS.publicBaseUrl}: the custom domain the certificate is for`,
    );
  return raw;
}

function webAclArnOf(node: Node): string | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.cloudFrontWebAclArn);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]+\/[\w-]+$/.test(raw)) {
    throw new Error(
      `Context ${CONTEXT_KEYS.cloudFrontWebAclArn} must be the ARN of a CLOUDFRONT-scope WAFv2 web ACL (us-east-1, global/webacl/…), got ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

function consoleAssetsOf(node: Node): string | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.consoleAssets);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw === '')
    throw new Error(
      `Context ${CONTEXT_KEYS.consoleAssets} must be a directory holding the built console, got ${JSON.stringify(raw)}`,
    );
  return resolvePath(raw);
}

function csafDefaultProviderOf(node: Node): string | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.csafDefaultProvider);
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !/^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(raw)) {
    throw new Error(
      `Context ${CONTEXT_KEYS.csafDefaultProvider} must be a team's CSAF directory name (lowercase letters, digits, inner hyphens), got ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/** An external issuer and its client id, given together or not at all. */
function signInOf(node: Node): VexdeskSettings['signIn'] {
  const issuer = urlOf(node, CONTEXT_KEYS.signInIssuer, { allowEmpty: false, httpsOnly: true });
  const clientId: unknown = node.tryGetContext(CONTEXT_KEYS.signInClientId);
  if (issuer === undefined && clientId === undefined) return undefined;
  if (issuer === undefined || typeof clientId !== 'string' || clientId === '') {
    throw new Error(
      `Context ${CONTEXT_KEYS.signInIssuer} and ${CONTEXT_KEYS.signInClientId} are given together (an external OpenID provider) or not at all (the stack's Cognito user pool)`,
    );
  }
  return { issuer: trimTrailing(issuer, '/'), clientId };
}

/** Cognito domain prefixes: lowercase letters, digits and hyphens, 1–63, not starting or ending with a hyphen. */
function domainPrefixOf(node: Node): string | undefined {
  const raw: unknown = node.tryGetContext(CONTEXT_KEYS.signInDomainPrefix);
  if (raw === undefined) return undefined;
  if (
    typeof raw !== 'string' ||
    !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(raw) ||
    raw.includes('aws') ||
    raw.includes('cognito')
  ) {
    throw new Error(
      `Context ${CONTEXT_KEYS.signInDomainPrefix} must be lowercase letters, digits and hyphens (no "aws" or "cognito"), got ${JSON.stringify(raw)}`,
    );
  }
  return raw;
}

/** Settings from context, each missing value replaced by its default; invalid values fail synth. */
export function settingsFromContext(node: Node): VexdeskSettings {
  const d = DEFAULT_SETTINGS;
  // Documents are public security records: their links must not downgrade to http.
  const publicBaseUrl = publicBaseUrlOf(node) ?? d.publicBaseUrl;
  return {
    // Object Lock allows up to 100 years.
    disclosureRetentionDays:
      positiveInteger(node, CONTEXT_KEYS.disclosureRetentionDays, 36500) ?? d.disclosureRetentionDays,
    logRetention: logRetentionOf(node) ?? d.logRetention,
    logLevel: logLevelOf(node) ?? d.logLevel,
    throttle: {
      rateLimit: positiveInteger(node, CONTEXT_KEYS.throttleRate, 10000) ?? d.throttle.rateLimit,
      burstLimit: positiveInteger(node, CONTEXT_KEYS.throttleBurst, 5000) ?? d.throttle.burstLimit,
    },
    publicThrottle: {
      rateLimit: positiveInteger(node, CONTEXT_KEYS.publicThrottleRate, 10000) ?? d.publicThrottle.rateLimit,
      burstLimit: positiveInteger(node, CONTEXT_KEYS.publicThrottleBurst, 5000) ?? d.publicThrottle.burstLimit,
    },
    tracing: booleanOf(node, CONTEXT_KEYS.tracing) ?? d.tracing,
    teamThrottle: {
      rateLimit: positiveInteger(node, CONTEXT_KEYS.teamThrottleRate, 10000) ?? d.teamThrottle.rateLimit,
      burstLimit: positiveInteger(node, CONTEXT_KEYS.teamThrottleBurst, 5000) ?? d.teamThrottle.burstLimit,
    },
    publicClientLimit: publicClientLimitOf(node) ?? d.publicClientLimit,
    publicBaseUrl,
    certificateArn: certificateArnOf(node, publicBaseUrl) ?? d.certificateArn,
    cloudFrontWebAclArn: webAclArnOf(node) ?? d.cloudFrontWebAclArn,
    consoleAssets: consoleAssetsOf(node) ?? d.consoleAssets,
    csafDefaultProvider: csafDefaultProviderOf(node) ?? d.csafDefaultProvider,
    corpusFeeds: {
      osvEcosystems: osvEcosystemsOf(node, CONTEXT_KEYS.corpusOsvEcosystems) ?? d.corpusFeeds.osvEcosystems,
      osvBaseUrl:
        urlOf(node, CONTEXT_KEYS.corpusOsvBaseUrl, { allowEmpty: false, httpsOnly: false }) ?? d.corpusFeeds.osvBaseUrl,
      kevUrl: urlOf(node, CONTEXT_KEYS.corpusKevUrl, { allowEmpty: true, httpsOnly: false }) ?? d.corpusFeeds.kevUrl,
      epssUrl: urlOf(node, CONTEXT_KEYS.corpusEpssUrl, { allowEmpty: true, httpsOnly: false }) ?? d.corpusFeeds.epssUrl,
    },
    corpusRefreshSchedule: corpusRefreshScheduleOf(node, CONTEXT_KEYS.corpusRefreshSchedule) ?? d.corpusRefreshSchedule,
    signIn: signInOf(node) ?? d.signIn,
    signInDomainPrefix: domainPrefixOf(node) ?? d.signInDomainPrefix,
    notifyEmail: notifyEmailOf(node, CONTEXT_KEYS.notifySesIdentity, CONTEXT_KEYS.notifySesFrom) ?? d.notifyEmail,
  };
}
