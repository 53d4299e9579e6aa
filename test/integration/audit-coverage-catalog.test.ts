/** Every mutating route of the products, releases, SBOMs and scans route groups writes an audit entry attributed to the caller. */
import { describeAuditCoverage } from '../support/audit-coverage';
import { catalogScenarios } from '../support/audit-scenarios/catalog';

describeAuditCoverage(catalogScenarios);
