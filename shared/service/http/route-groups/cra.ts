import { defineGroup } from '../route-definition';
import * as cra from '../../schemas/cra';

/** The `cra` group's routes (the function `functions/cra/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const craRoutes = defineGroup('cra', [
  {
    operationId: 'listCraCases',
    method: 'GET',
    path: '/api/cra/cases',
    scope: 'cra:read',
    mutates: false,
    summary: 'CRA Article 14 cases, soonest deadline first (filtered by status, product and next deadline)',
    request: { query: cra.craCaseListQuery },
    responses: { 200: { description: 'A page of cases', schema: cra.craCaseListResponse } },
  },
  {
    operationId: 'getCraCase',
    method: 'GET',
    path: '/api/cra/cases/{caseId}',
    scope: 'cra:read',
    mutates: false,
    summary: 'One CRA case with its deadlines, timeliness, submissions, drafts and timeline',
    request: { params: cra.craCaseIdParams },
    responses: { 200: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'updateCraCase',
    method: 'PUT',
    path: '/api/cra/cases/{caseId}',
    scope: 'cra:write',
    mutates: true,
    summary: "Set the awareness time earlier (with a reason) or edit a stage's draft fields (each edit a new version)",
    request: { params: cra.craCaseIdParams, body: cra.updateCraCaseBody },
    responses: { 200: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'dismissCraCase',
    method: 'POST',
    path: '/api/cra/cases/{caseId}/dismiss',
    scope: 'cra:write',
    mutates: true,
    summary: 'Dismiss a case with a reason (say, a not_affected decision and its justification)',
    request: { params: cra.craCaseIdParams, body: cra.dismissCraCaseBody },
    responses: { 200: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'closeCraCase',
    method: 'POST',
    path: '/api/cra/cases/{caseId}/close',
    scope: 'cra:write',
    mutates: true,
    summary: 'Close a case whose final report is recorded',
    request: { params: cra.craCaseIdParams, body: cra.closeCraCaseBody },
    responses: { 200: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'recordCraFix',
    method: 'POST',
    path: '/api/cra/cases/{caseId}/fix',
    scope: 'cra:write',
    mutates: true,
    summary:
      'Record a corrective or mitigating measure and when it became available: the final report is due 14 days later',
    request: { params: cra.craCaseIdParams, body: cra.recordCraFixBody },
    responses: { 200: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'recordCraSubmission',
    method: 'POST',
    path: '/api/cra/cases/{caseId}/submissions',
    scope: 'cra:write',
    mutates: true,
    summary:
      "Record a report a person submitted to the single reporting platform, with the platform's reference; moves the status on",
    request: { params: cra.craCaseIdParams, body: cra.craSubmissionBody },
    responses: { 201: { description: 'The case', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'informCraUsers',
    method: 'POST',
    path: '/api/cra/cases/{caseId}/inform-users',
    scope: 'cra:write',
    mutates: true,
    summary:
      'Draft the CSAF advisory of the affected releases through the VEX workflow to inform users (Art. 14(8)); publishing it records users_informed_at. Needs vex:write too',
    request: { params: cra.craCaseIdParams, body: cra.informCraUsersBody },
    responses: { 201: { description: 'The case, with the drafted advisories', schema: cra.craCaseResponse } },
  },
  {
    operationId: 'getCraReport',
    method: 'GET',
    path: '/api/cra/cases/{caseId}/reports/{stage}',
    scope: 'cra:read',
    mutates: false,
    summary:
      "The draft of a stage's report, from the data and the edited fields (JSON, or Markdown with ?format=markdown or Accept: text/markdown)",
    request: { params: cra.craStageParams, query: cra.craReportQuery },
    responses: {
      200: {
        description: 'The draft',
        schema: cra.craReportResponse,
        alternatives: { 'text/markdown': null },
      },
    },
  },
  {
    operationId: 'markExploited',
    method: 'POST',
    path: '/api/cra/exploited',
    scope: 'cra:write',
    mutates: true,
    summary:
      'Mark a vulnerability actively exploited, with a reason and evidence: cases open for its findings on on-market releases',
    request: { body: cra.markExploitedBody },
    responses: { 201: { description: 'The cases of the vulnerability', schema: cra.markExploitedResponse } },
  },
]);
