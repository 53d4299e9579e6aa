/**
 * The suites that read the stack as `cdk synth` builds it with default settings (or with X-Ray
 * tracing on, or an SES identity for notification e-mail), gathered in one test file so the stack is built, synthesized and validated once for
 * all of them (`sharedStack` in ./support/synth.ts) instead of once per file: a synthesis costs
 * seconds, and each test file loads aws-cdk-lib anew. Each suite lives in ./default-stack/, one
 * subject per file; a suite that needs other settings synthesizes its own stack there.
 */
import './default-stack/stack-storage';
import './default-stack/stack-rest-api';
import './default-stack/stack-headroom';
import './default-stack/function-code';
import './default-stack/stack-least-privilege';
import './default-stack/throttling';
import './default-stack/client-firewall';
import './default-stack/public-base-url';
import './default-stack/permissions-match-code';
import './default-stack/permissions-leading-keys';
import './default-stack/permissions-tenant-roles';
import './default-stack/notify-email';
import './default-stack/nag';
