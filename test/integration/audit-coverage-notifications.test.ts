/** Every mutating route of the notifications route group writes an audit entry attributed to the caller. */
import { describeAuditCoverage } from '../support/audit-coverage';
import { notificationScenarios } from '../support/audit-scenarios/notifications';

describeAuditCoverage(notificationScenarios);
