import { anyJson, noContent, type RouteDefinition } from '../route-definition';
import * as releases from '../../schemas/releases';
import * as vex from '../../schemas/vex';

/** The `vex` group's routes (the function `functions/vex/handler.ts` serves them); the whole table is shared/http/routes.ts. */
export const vexRoutes = [
  // VEX documents
  {
    operationId: 'listVexDocuments', method: 'GET', path: '/api/releases/{releaseId}/vex', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'All VEX documents of a release', availability: 'implemented',
    request: { params: releases.releaseIdParams }, responses: { 200: anyJson('Paged VEX documents') },
  },
  {
    operationId: 'createVexDocument', method: 'POST', path: '/api/releases/{releaseId}/vex', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Generate a VEX document (draft) from the release\'s findings and dispositions', availability: 'implemented',
    request: { params: releases.releaseIdParams, body: vex.createVexBody }, responses: { 201: anyJson('The draft with full content') },
  },
  {
    operationId: 'unlockRelease', method: 'POST', path: '/api/releases/{releaseId}/unlock', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Unlock a release chain held by a submitted/approved/published VEX document', availability: 'implemented',
    request: { params: releases.releaseIdParams, body: vex.unlockReleaseBody }, responses: { 200: anyJson('The unlocked release') },
  },
  {
    operationId: 'getVexDocument', method: 'GET', path: '/api/vex/{vexId}', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'A VEX document with full content', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'deleteVexDocument', method: 'DELETE', path: '/api/vex/{vexId}', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Delete a draft VEX document; 409 otherwise', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: noContent,
  },
  {
    operationId: 'regenerateVexDocument', method: 'POST', path: '/api/vex/{vexId}/regenerate', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Regenerate a draft from current dispositions (version + 1)', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The regenerated draft') },
  },
  {
    operationId: 'submitVexDocument', method: 'POST', path: '/api/vex/{vexId}/submit', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Submit a draft for approval; locks the release chain', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.submitBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'approveVexDocument', method: 'POST', path: '/api/vex/{vexId}/approve', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Approve a submitted document', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.approveBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'rejectVexDocument', method: 'POST', path: '/api/vex/{vexId}/reject', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Reject a submitted document back to draft; unlocks the release chain', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.rejectBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'publishVexDocument', method: 'POST', path: '/api/vex/{vexId}/publish', group: 'vex', scope: 'vex:write', mutates: true,
    summary: 'Publish an approved document as an immutable, signed public disclosure', availability: 'implemented',
    request: { params: vex.vexIdParams, body: vex.publishBody }, responses: { 200: anyJson('`{ vexDocument, disclosure }`') },
  },
  {
    operationId: 'listVexApprovals', method: 'GET', path: '/api/vex/{vexId}/approvals', group: 'vex', scope: 'vex:read', mutates: false,
    summary: 'Approval trail of a VEX document', availability: 'implemented',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('`{ data: [approval record] }`') },
  },
] as const satisfies readonly RouteDefinition<'vex'>[];
