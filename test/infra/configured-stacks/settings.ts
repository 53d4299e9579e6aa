/**
 * Deployment knobs: defaults, context parsing (`cdk deploy -c key=value`
 * passes strings) and the effect of the disclosure retention on Object Lock.
 */
import { describe, expect, it } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { CONTEXT_KEYS, DEFAULT_SETTINGS, settingsFromContext } from '../../../lib/settings';
import { VexdeskStack } from '../../../lib/vexdesk-stack';
import { assertCatalogFunctionsProperties, assertResourceProperties, createApp } from '../support/synth';

function settingsWith(context: Record<string, unknown>): ReturnType<typeof settingsFromContext> {
  return settingsFromContext(new App({ context }).node);
}

describe('stack settings', () => {
  it('falls back to the documented defaults without context', () => {
    expect(settingsWith({})).toEqual(DEFAULT_SETTINGS);
    expect(DEFAULT_SETTINGS).toMatchObject({
      disclosureRetentionDays: 3650,
      logRetention: RetentionDays.ONE_MONTH,
      tracing: false,
    });
  });

  it('reads every knob from context, including the strings the CLI passes', () => {
    const settings = settingsWith({
      [CONTEXT_KEYS.disclosureRetentionDays]: '400',
      [CONTEXT_KEYS.logRetentionDays]: '90',
      [CONTEXT_KEYS.logLevel]: 'DEBUG',
      [CONTEXT_KEYS.throttleRate]: '50',
      [CONTEXT_KEYS.throttleBurst]: 80,
      [CONTEXT_KEYS.publicThrottleRate]: '5',
      [CONTEXT_KEYS.publicThrottleBurst]: '10',
      [CONTEXT_KEYS.tracing]: 'true',
      [CONTEXT_KEYS.teamThrottleRate]: '10',
      [CONTEXT_KEYS.teamThrottleBurst]: '20',
      [CONTEXT_KEYS.publicClientLimit]: '120',
      [CONTEXT_KEYS.publicBaseUrl]: 'https://vex.acme.example',
      [CONTEXT_KEYS.csafDefaultProvider]: 'acme-psirt',
      [CONTEXT_KEYS.corpusOsvEcosystems]: 'npm,PyPI',
      [CONTEXT_KEYS.corpusOsvBaseUrl]: 'https://osv-mirror.acme.example',
      [CONTEXT_KEYS.corpusKevUrl]: '',
      [CONTEXT_KEYS.corpusEpssUrl]: 'https://mirror.acme.example/epss.csv.gz',
      [CONTEXT_KEYS.corpusRefreshSchedule]: 'rate(30 minutes)',
    });

    expect(settings).toEqual({
      disclosureRetentionDays: 400,
      logRetention: RetentionDays.THREE_MONTHS,
      logLevel: 'DEBUG',
      throttle: { rateLimit: 50, burstLimit: 80 },
      publicThrottle: { rateLimit: 5, burstLimit: 10 },
      tracing: true,
      teamThrottle: { rateLimit: 10, burstLimit: 20 },
      publicClientLimit: 120,
      publicBaseUrl: 'https://vex.acme.example',
      csafDefaultProvider: 'acme-psirt',
      corpusFeeds: {
        osvEcosystems: ['npm', 'PyPI'],
        osvBaseUrl: 'https://osv-mirror.acme.example',
        kevUrl: '',
        epssUrl: 'https://mirror.acme.example/epss.csv.gz',
      },
      corpusRefreshSchedule: 'rate(30 minutes)',
    });
  });

  it("rejects a per-client limit below AWS WAF's lowest rate limit", () => {
    expect(() => settingsWith({ [CONTEXT_KEYS.publicClientLimit]: '9' })).toThrow(/at least 10/);
  });

  it.each([['0'], ['-5'], ['12.5'], ['forever'], ['36501']])('rejects a disclosure retention of %s days', (days) => {
    expect(() => settingsWith({ [CONTEXT_KEYS.disclosureRetentionDays]: days })).toThrow(
      /vexdesk:disclosureRetentionDays/,
    );
  });

  it('rejects a log retention CloudWatch Logs does not offer', () => {
    expect(() => settingsWith({ [CONTEXT_KEYS.logRetentionDays]: '31' })).toThrow(/retention period/);
  });

  it('rejects an unknown log level', () => {
    expect(() => settingsWith({ [CONTEXT_KEYS.logLevel]: 'verbose' })).toThrow(/DEBUG, INFO, WARN, ERROR/);
  });

  it('locks disclosures for the retention given in context and passes the log level to the functions', () => {
    const app = createApp({
      context: { [CONTEXT_KEYS.disclosureRetentionDays]: '400', [CONTEXT_KEYS.logLevel]: 'WARN' },
    });
    const stack = new VexdeskStack(app, 'Vexdesk', { settings: settingsFromContext(app.node) });
    const template = Template.fromStack(stack);

    assertResourceProperties(template, 'AWS::S3::Bucket', {
      ObjectLockConfiguration: {
        ObjectLockEnabled: 'Enabled',
        Rule: { DefaultRetention: { Mode: 'COMPLIANCE', Days: 400 } },
      },
    });
    assertCatalogFunctionsProperties(template, stack, { Environment: { Variables: { LOG_LEVEL: 'WARN' } } });
  });
});
