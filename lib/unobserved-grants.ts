/**
 * Grants that no AWS call of the integration tests exercises, each with the reason it is still needed
 * (docs/architecture/request-path.md "Permissions that match the code").
 * test/infra/default-stack/permissions-match-code.ts checks the stack's grants against the observed calls and this list.
 */

/**
 * ARN patterns use the placeholders of the observed-call manifest; the infra test fails on an entry
 * that no longer matches a grant.
 */
export interface UnobservedGrant {
  functions: readonly string[];
  actions: readonly string[];
  resource: string;
  reason: string;
}

export const UNOBSERVED_GRANTS: readonly UnobservedGrant[] = [
  {
    functions: ['scans'],
    actions: ['dynamodb:ConditionCheckItem'],
    resource: 'arn:aws:dynamodb:{region}:{account}:table/{table}',
    reason:
      "A scan run through POST /api/cve-scan carries earlier releases' decisions like the scan worker does, in bulk transactions that check the release (shared/service/dispositions/disposition-store.ts `underBulk`); the integration runs carry decisions over only from the upload's scan.",
  },
  {
    functions: ['sboms'],
    actions: ['sqs:SendMessage'],
    resource: 'arn:aws:sqs:{region}:{account}:{scanQueue}',
    reason:
      'Each upload enqueues its scan on AWS; the local runtime has no queue and runs the scan worker in-process (configuration, SCAN_QUEUE_URL unset).',
  },
  {
    functions: ['vex', 'disclosures'],
    actions: ['secretsmanager:GetSecretValue'],
    resource: 'arn:aws:secretsmanager:{region}:{account}:secret:{signingSecret}',
    reason: 'On AWS the signing key comes from Secrets Manager; local runs take it from DISCLOSURE_SIGNING_KEY.',
  },
  {
    functions: ['vex', 'settings'],
    actions: ['kms:Encrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS a new publisher private key (first publication, rotation) is sealed under the stack's KMS key; the local runtime seals it with a key file of its data directory (configuration: PUBLISHER_KEY_SEAL_FILE instead of PUBLISHER_KEY_KMS_KEY_ID).",
  },
  {
    functions: ['vex'],
    actions: ['kms:Decrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS publishing opens the sealed publisher key with KMS to sign; locally the data directory's key file opens it (same configuration switch).",
  },
  {
    functions: ['notifications'],
    actions: ['kms:Encrypt', 'kms:Decrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS a notification channel's URL and signing secret are sealed under the stack's KMS key when it is created, changed or rotated, and opened to send a test; locally the data directory's key file does both (same configuration switch as the publisher keys).",
  },
  {
    functions: ['notify-worker'],
    actions: ['kms:Decrypt'],
    resource: 'arn:aws:kms:{region}:{account}:key/{publisherKey}',
    reason:
      "On AWS the notification worker opens a channel's sealed URL and secret with KMS to deliver; locally the data directory's key file opens them.",
  },
  {
    functions: ['notify-worker', 'notifications'],
    actions: ['ses:SendEmail'],
    resource: 'arn:aws:ses:{region}:{account}:identity/{sesIdentity}',
    reason:
      'Only when the stack is given an SES identity (vexdesk:notifySesIdentity): e-mail channels then deliver, and send their test message, through SES; locally e-mail goes to SMTP or .eml files (configuration: NOTIFY_SES_FROM unset).',
  },
  {
    functions: ['scan-worker'],
    actions: [
      'sqs:ReceiveMessage',
      'sqs:ChangeMessageVisibility',
      'sqs:GetQueueUrl',
      'sqs:DeleteMessage',
      'sqs:GetQueueAttributes',
    ],
    resource: 'arn:aws:sqs:{region}:{account}:{scanQueue}',
    reason:
      'Granted by the SQS event source mapping: the Lambda service polls and deletes the messages for the worker; its code makes no SQS call.',
  },
  {
    functions: [
      'products',
      'releases',
      'sboms',
      'scans',
      'dispositions',
      'vex',
      'compliance',
      'audit',
      'events',
      'cra',
      'notifications',
      'settings',
      'auth',
    ],
    actions: ['sts:AssumeRole', 'sts:TagSession'],
    resource: 'arn:aws:iam::{account}:role/{tenantRole}',
    reason:
      'Each tenant function assumes its own tenant role per team on AWS (TENANT_ROLE_ARN); the local runtime has no STS or IAM, so the variable is unset and the calls never happen.',
  },
  {
    functions: ['*'],
    actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'],
    resource: '*',
    reason:
      'Only with tracing on: the Lambda runtime sends the trace segments, not the function code; X-Ray has no resource-level permissions.',
  },
];
