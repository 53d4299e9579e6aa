/**
 * Notification e-mail on AWS (docs/notifications.md "E-mail"): an SES identity the operator verified and the
 * sender address on it, both from context. Given, the functions that send (the notify worker, and the
 * notifications API for a channel's test message) get `ses:SendEmail` on that identity only and
 * NOTIFY_SES_FROM; not given, they get neither, and e-mail channels are refused when created (422).
 */
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Node } from 'constructs';
import type { ServiceFunctions } from './service-functions';

export interface NotifyEmailSettings {
  /** `arn:aws:ses:<region>:<account>:identity/<domain or address>`, verified in SES. */
  identityArn: string;
  /** The From address: the identity itself, or an address of its domain. */
  from: string;
}

/** The catalog functions that send notification e-mail. */
export const NOTIFY_EMAIL_SENDERS = ['notify-worker', 'notifications'] as const;

const IDENTITY_ARN = /^arn:aws[a-z-]*:ses:[a-z0-9-]+:\d{12}:identity\/([^/\s]+)$/;
const ADDRESS = /^[^@\s]+@([^@\s]+\.[^@\s]+)$/;

/** Identity and sender, given together or not at all; the sender must be one the identity may send as. */
export function notifyEmailOf(node: Node, identityKey: string, fromKey: string): NotifyEmailSettings | undefined {
  const identityArn: unknown = node.tryGetContext(identityKey);
  const from: unknown = node.tryGetContext(fromKey);
  if (identityArn === undefined && from === undefined) return undefined;
  const identity = typeof identityArn === 'string' ? IDENTITY_ARN.exec(identityArn)?.[1] : undefined;
  if (identity === undefined)
    throw new Error(
      `Context ${identityKey} must be the ARN of a verified SES identity (arn:aws:ses:<region>:<account>:identity/<domain or address>), got ${JSON.stringify(identityArn)}`,
    );
  const domain = typeof from === 'string' ? ADDRESS.exec(from)?.[1] : undefined;
  if (typeof from !== 'string' || domain === undefined)
    throw new Error(`Context ${fromKey} must be the sender's e-mail address, got ${JSON.stringify(from)}`);
  const allowed = identity.includes('@')
    ? from.toLowerCase() === identity.toLowerCase()
    : domain.toLowerCase() === identity.toLowerCase();
  if (!allowed)
    throw new Error(
      `Context ${fromKey} (${from}) is not an address the SES identity ${identity} may send as: the identity's own address, or one of its domain`,
    );
  return { identityArn: identityArn as string, from };
}

export function configureNotifyEmail(settings: NotifyEmailSettings | undefined, functions: ServiceFunctions): void {
  if (!settings) return;
  for (const name of NOTIFY_EMAIL_SENDERS) {
    const fn = functions.byName.get(name);
    if (!fn) continue;
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['ses:SendEmail'], resources: [settings.identityArn] }));
    fn.addEnvironment('NOTIFY_SES_FROM', settings.from);
  }
}
