/**
 * The handler module of each endpoint group and of the authorizer, imported on first use. Named statically (not by a
 * path built at run time) so that a bundle of the local server can hold them: the test run starts the server from
 * one (test/support/server-bundle.ts). Typed by the route table's groups, so a group without its entry here, or an
 * entry for no group, fails typecheck.
 */
import type { EndpointGroup } from '../service/http/routes';

type HandlerModule = () => Promise<{ handler: unknown }>;

export const FUNCTION_HANDLERS: Record<EndpointGroup | 'authorizer', HandlerModule> = {
  products: () => import('../../functions/products/handler'),
  releases: () => import('../../functions/releases/handler'),
  sboms: () => import('../../functions/sboms/handler'),
  scans: () => import('../../functions/scans/handler'),
  dispositions: () => import('../../functions/dispositions/handler'),
  vex: () => import('../../functions/vex/handler'),
  disclosures: () => import('../../functions/disclosures/handler'),
  compliance: () => import('../../functions/compliance/handler'),
  audit: () => import('../../functions/audit/handler'),
  events: () => import('../../functions/events/handler'),
  cra: () => import('../../functions/cra/handler'),
  notifications: () => import('../../functions/notifications/handler'),
  settings: () => import('../../functions/settings/handler'),
  auth: () => import('../../functions/auth/handler'),
  signin: () => import('../../functions/signin/handler'),
  openapi: () => import('../../functions/openapi/handler'),
  authorizer: () => import('../../functions/authorizer/handler'),
};
