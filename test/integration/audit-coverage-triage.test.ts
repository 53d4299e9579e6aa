/** Every mutating route of the dispositions and VEX route groups writes an audit entry attributed to the caller. */
import { describeAuditCoverage } from '../support/audit-coverage';
import { triageScenarios } from '../support/audit-scenarios/triage';

describeAuditCoverage(triageScenarios);
