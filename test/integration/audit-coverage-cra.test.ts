/** Every mutating route of the CRA group writes an audit entry attributed to the caller. */
import { describeAuditCoverage } from '../support/audit-coverage';
import { craScenarios } from '../support/audit-scenarios/cra';

describeAuditCoverage(craScenarios);
