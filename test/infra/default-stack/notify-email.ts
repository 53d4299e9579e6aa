/**
 * Notification e-mail through SES (lib/notify-email.ts): the identity and sender come from context together,
 * and only then do the sending functions get `ses:SendEmail` on that one identity and NOTIFY_SES_FROM.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { App } from 'aws-cdk-lib';
import { NOTIFY_EMAIL_SENDERS } from '../../../lib/notify-email';
import { CONTEXT_KEYS, settingsFromContext } from '../../../lib/settings';
import type { VexdeskStack } from '../../../lib/vexdesk-stack';
import type { Template } from 'aws-cdk-lib/assertions';
import { environmentOfFunction, executionRoleLogicalId, sharedStack, statementsOfRole } from '../support/synth';

const IDENTITY = 'arn:aws:ses:eu-west-1:123456789012:identity/acme.example';
const FROM = 'psirt-alerts@acme.example';

const settingsWith = (context: Record<string, unknown>) => settingsFromContext(new App({ context }).node);

describe('notification e-mail settings', () => {
  it('reads the SES identity and sender from context', () => {
    expect(
      settingsWith({ [CONTEXT_KEYS.notifySesIdentity]: IDENTITY, [CONTEXT_KEYS.notifySesFrom]: FROM }).notifyEmail,
    ).toEqual({ identityArn: IDENTITY, from: FROM });
    const addressIdentity = 'arn:aws:ses:eu-west-1:123456789012:identity/psirt@acme.example';
    expect(
      settingsWith({
        [CONTEXT_KEYS.notifySesIdentity]: addressIdentity,
        [CONTEXT_KEYS.notifySesFrom]: 'PSIRT@acme.example',
      }).notifyEmail,
    ).toEqual({ identityArn: addressIdentity, from: 'PSIRT@acme.example' });
    expect(settingsWith({}).notifyEmail).toBeUndefined();
  });

  it('refuses one without the other, an ARN that is not an SES identity, and a sender the identity may not send as', () => {
    expect(() => settingsWith({ [CONTEXT_KEYS.notifySesIdentity]: IDENTITY })).toThrow(CONTEXT_KEYS.notifySesFrom);
    expect(() => settingsWith({ [CONTEXT_KEYS.notifySesFrom]: FROM })).toThrow(CONTEXT_KEYS.notifySesIdentity);
    expect(() =>
      settingsWith({
        [CONTEXT_KEYS.notifySesIdentity]: 'arn:aws:sns:eu-west-1:123456789012:topic',
        [CONTEXT_KEYS.notifySesFrom]: FROM,
      }),
    ).toThrow(/verified SES identity/);
    expect(() =>
      settingsWith({
        [CONTEXT_KEYS.notifySesIdentity]: IDENTITY,
        [CONTEXT_KEYS.notifySesFrom]: 'alerts@other.example',
      }),
    ).toThrow(/may send as/);
  });
});

const sesStatements = (template: Template, stack: VexdeskStack, name: string) =>
  statementsOfRole(template, executionRoleLogicalId(stack, name)).filter((statement) =>
    statement.actions.some((action) => action.startsWith('ses:')),
  );

describe('the stack with an SES identity', () => {
  let stack: VexdeskStack;
  let template: Template;

  beforeAll(() => {
    ({ stack, template } = sharedStack({ notifyEmail: { identityArn: IDENTITY, from: FROM } }));
  });

  it('lets the notify worker and the notifications API send e-mail as that identity only, and tells them the sender', () => {
    for (const name of NOTIFY_EMAIL_SENDERS) {
      expect(sesStatements(template, stack, name)).toEqual([{ actions: ['ses:SendEmail'], resource: `"${IDENTITY}"` }]);
      expect(environmentOfFunction(template, stack, name)).toMatchObject({ NOTIFY_SES_FROM: FROM });
    }
  });

  it('gives no other function SES', () => {
    for (const name of stack.functions.keys()) {
      if ((NOTIFY_EMAIL_SENDERS as readonly string[]).includes(name)) continue;
      expect({ name, ses: sesStatements(template, stack, name) }).toEqual({ name, ses: [] });
      expect(environmentOfFunction(template, stack, name)).not.toHaveProperty('NOTIFY_SES_FROM');
    }
  });
});

describe('the stack without one', () => {
  it('grants no SES and sets no sender, so e-mail channels are refused when created', () => {
    const { stack, template } = sharedStack();
    for (const name of stack.functions.keys()) {
      expect({ name, ses: sesStatements(template, stack, name) }).toEqual({ name, ses: [] });
      expect(environmentOfFunction(template, stack, name)).not.toHaveProperty('NOTIFY_SES_FROM');
    }
  });
});
