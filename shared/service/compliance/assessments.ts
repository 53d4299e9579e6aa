/**
 * Regulatory and framework checklists (EU CRA, US EO 14028/14144, NIST SSDF) assessed
 * from the report facts, one module per framework under frameworks/. Each item's status is
 * derived from facts the service holds; what the service cannot see is "manual attestation
 * required", never "met".
 */
import type { Assessment } from './frameworks/evidence';
import { assessCraPart1, assessCraPart2, assessCraReporting } from './frameworks/cra';
import { assessExecutiveOrders } from './frameworks/executive-orders';
import { assessSsdf, type SsdfGroup } from './frameworks/ssdf';
import type { ReportFacts } from './report-facts';

export interface FrameworkAssessments {
  craPart2: Assessment[];
  craPart1: Assessment[];
  craReporting: Assessment[];
  executiveOrders: Assessment[];
  ssdf: SsdfGroup[];
}

export function assessFrameworks(facts: ReportFacts): FrameworkAssessments {
  return {
    craPart2: assessCraPart2(facts),
    craPart1: assessCraPart1(facts),
    craReporting: assessCraReporting(facts),
    executiveOrders: assessExecutiveOrders(facts),
    ssdf: assessSsdf(facts),
  };
}
