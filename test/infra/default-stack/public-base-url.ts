/**
 * What the deployed functions name in generated documents (PUBLIC_BASE_URL) and
 * where the corpus refresh downloads from (issue 9 items 10 and 11): set on the
 * functions, configurable by context, and without a dependency cycle CloudFormation
 * would refuse (synth validates the template: a cycle fails it).
 */
import { describe, expect, it } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { ECOSYSTEMS } from '../../../shared/service/matching/ecosystems';
import { CONTEXT_KEYS, settingsFromContext } from '../../../lib/settings';
import { VexdeskStack } from '../../../lib/vexdesk-stack';
import { createApp, logicalIdOf, resourcesOf, sharedStack, type Resources } from '../support/synth';

type Environment = Record<string, unknown>;

function environmentOf(stack: VexdeskStack, resources: Resources, name: string): Environment {
  const properties = resources[logicalIdOf(stack, stack.requireFunction(name))]?.Properties as {
    Environment: { Variables: Environment };
  };
  return properties.Environment.Variables;
}

/** The schedule expressions of the rules that start the corpus refresh. */
function refreshSchedules(stack: VexdeskStack, resources: Resources): unknown[] {
  const refresh = logicalIdOf(stack, stack.requireFunction('corpus-refresh'));
  return Object.values(resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::Events::Rule' &&
        JSON.stringify(resource.Properties?.Targets ?? []).includes(`"${refresh}"`),
    )
    .map((resource) => resource.Properties?.ScheduleExpression);
}

/** The stack as `cdk synth -c key=value` builds it (bin/app.ts). */
function synthWithContext(context: Record<string, unknown>) {
  const app = createApp({ context });
  const stack = new VexdeskStack(app, 'Vexdesk', { settings: settingsFromContext(app.node) });
  return { stack, template: Template.fromStack(stack) };
}

function settingsWith(context: Record<string, unknown>) {
  return settingsFromContext(new App({ context }).node);
}

describe('PUBLIC_BASE_URL on AWS', () => {
  it('is the CloudFront distribution on every function by default (console and API share it), without a dependency cycle', () => {
    const { stack, template } = sharedStack();
    const resources = resourcesOf(template);
    const expected = {
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(stack, stack.console.distribution), 'DomainName'] }]],
    };
    expect(stack.functions.size).toBeGreaterThan(10);
    for (const name of stack.functions.keys())
      expect(environmentOf(stack, resources, name).PUBLIC_BASE_URL).toEqual(expected);
    expect((template.toJSON() as { Outputs: Record<string, { Value: unknown }> }).Outputs.PublicBaseUrl?.Value).toEqual(
      expected,
    );
  });

  it("synth refuses the dependency cycle the API's stage URL would make (so the synth above proves there is none)", () => {
    const stack = new VexdeskStack(createApp(), 'Vexdesk');
    // api.url names the stage, whose deployment depends on every method, whose integrations name the functions.
    stack.requireFunction('vex').addEnvironment('STAGE_URL', stack.api.url);
    expect(() => Template.fromStack(stack)).toThrow(/Circular dependency/);
  });

  it('is the custom domain given in context, verbatim on every function', () => {
    const { stack, template } = synthWithContext({ [CONTEXT_KEYS.publicBaseUrl]: 'https://vex.acme.example/' });
    const resources = resourcesOf(template);
    for (const name of stack.functions.keys())
      expect(environmentOf(stack, resources, name).PUBLIC_BASE_URL).toBe('https://vex.acme.example');
  });

  it.each([['http://vex.acme.example'], ['vex.acme.example'], ['https://vex.acme.example/?a=1']])(
    'refuses %s as the public base URL',
    (value) => {
      expect(() => settingsWith({ [CONTEXT_KEYS.publicBaseUrl]: value })).toThrow(
        /vexdesk:publicBaseUrl must be an https URL/,
      );
    },
  );
});

describe('corpus refresh feeds', () => {
  it("default to OSV's bucket for every ecosystem the matcher supports, CISA KEV and FIRST EPSS, every hour", () => {
    const { stack, template } = sharedStack();
    const environment = environmentOf(stack, resourcesOf(template), 'corpus-refresh');
    expect(environment.CORPUS_OSV_BASE_URL).toBe('https://osv-vulnerabilities.storage.googleapis.com');
    expect(String(environment.CORPUS_OSV_ECOSYSTEMS).split(',')).toEqual([...ECOSYSTEMS]);
    expect(environment.CORPUS_KEV_URL).toBe(
      'https://www.cisa.gov/sites/default/files/feeds/known_exploited_vulnerabilities.json',
    );
    expect(environment.CORPUS_EPSS_URL).toBe('https://epss.empiricalsecurity.com/epss_scores-current.csv.gz');
    // Only the refresh downloads feeds.
    expect(environmentOf(stack, resourcesOf(template), 'scan-worker')).not.toHaveProperty('CORPUS_OSV_BASE_URL');
    const refresh = resourcesOf(template)[logicalIdOf(stack, stack.requireFunction('corpus-refresh'))]?.Properties;
    expect(refresh).toMatchObject({ EphemeralStorage: { Size: 4096 } });
    // The hourly refresh, and the continuation that resumes a whole-archive import cut into units.
    expect(refreshSchedules(stack, resourcesOf(template))).toEqual(['rate(1 hour)', 'rate(5 minutes)']);
  });

  it('take ecosystems, a mirror, the KEV and EPSS URLs and the schedule from context; an empty URL turns that source off', () => {
    const { stack, template } = synthWithContext({
      [CONTEXT_KEYS.corpusRefreshSchedule]: 'rate(15 minutes)',
      [CONTEXT_KEYS.corpusOsvEcosystems]: 'npm, crates.io',
      [CONTEXT_KEYS.corpusOsvBaseUrl]: 'https://osv-mirror.acme.example/osv/',
      [CONTEXT_KEYS.corpusKevUrl]: '',
      [CONTEXT_KEYS.corpusEpssUrl]: 'https://mirror.acme.example/epss.csv.gz',
    });
    expect(environmentOf(stack, resourcesOf(template), 'corpus-refresh')).toMatchObject({
      CORPUS_OSV_BASE_URL: 'https://osv-mirror.acme.example/osv/',
      CORPUS_OSV_ECOSYSTEMS: 'npm,crates.io',
      CORPUS_KEV_URL: '',
      CORPUS_EPSS_URL: 'https://mirror.acme.example/epss.csv.gz',
    });
    expect(refreshSchedules(stack, resourcesOf(template))).toEqual(['rate(15 minutes)', 'rate(5 minutes)']);
  });

  it('refuses an ecosystem the matcher does not support and a URL that is not one', () => {
    expect(() => settingsWith({ [CONTEXT_KEYS.corpusOsvEcosystems]: 'npm,cargo' })).toThrow(
      /"cargo" is not an ecosystem the matcher supports/,
    );
    expect(settingsWith({ [CONTEXT_KEYS.corpusOsvEcosystems]: ['Go', 'PyPI'] }).corpusFeeds.osvEcosystems).toEqual([
      'Go',
      'PyPI',
    ]);
    expect(() => settingsWith({ [CONTEXT_KEYS.corpusEpssUrl]: 'ftp://x.example/e.csv' })).toThrow(
      /vexdesk:corpusEpssUrl must be an http\(s\) URL/,
    );
  });

  it.each([['hourly'], ['rate(1 hours)'], ['rate(2 hour)'], ['rate(0 minutes)'], ['cron(0 * * *)']])(
    'refuse the schedule %s',
    (schedule) => {
      expect(() => settingsWith({ [CONTEXT_KEYS.corpusRefreshSchedule]: schedule })).toThrow(
        /vexdesk:corpusRefreshSchedule must be an EventBridge schedule/,
      );
    },
  );

  it('take a cron schedule as it is', () => {
    expect(settingsWith({ [CONTEXT_KEYS.corpusRefreshSchedule]: 'cron(17 * * * ? *)' }).corpusRefreshSchedule).toBe(
      'cron(17 * * * ? *)',
    );
  });
});
