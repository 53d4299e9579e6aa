/** Every mutating route of the settings, OIDC token exchange and sign-in route groups writes an audit entry attributed to the caller. */
import { describeAuditCoverage } from '../support/audit-coverage';
import { accessScenarios } from '../support/audit-scenarios/access';

describeAuditCoverage(accessScenarios);
