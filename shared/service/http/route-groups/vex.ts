import {anyJson, defineGroup, noContent } from '../route-definition';
import * as releases from '../../schemas/releases';
import * as vex from '../../schemas/vex';

/** The `vex` group's routes (the function `functions/vex/handler.ts` serves them); the whole table is shared/service/http/routes.ts. */
export const vexRoutes = defineGroup('vex', [
  // VEX documents
  {
    operationId: 'listVexDocuments', method: 'GET', path: '/api/releases/{releaseId}/vex', scope: 'vex:read', mutates: false,
    summary: 'All VEX documents of a release',
    request: { params: releases.releaseIdParams }, responses: { 200: anyJson('Paged VEX documents') },
  },
  {
    operationId: 'createVexDocument', method: 'POST', path: '/api/releases/{releaseId}/vex', scope: 'vex:write', mutates: true,
    summary: 'Generate a VEX document (draft) from the release\'s findings and dispositions',
    request: { params: releases.releaseIdParams, body: vex.createVexBody }, responses: { 201: anyJson('The draft with full content') },
  },
  {
    operationId: 'unlockRelease', method: 'POST', path: '/api/releases/{releaseId}/unlock', scope: 'vex:write', mutates: true,
    summary: 'Unlock a release chain held by a submitted/approved/published VEX document',
    request: { params: releases.releaseIdParams, body: vex.unlockReleaseBody }, responses: { 200: anyJson('The unlocked release') },
  },
  {
    operationId: 'getVexDocument', method: 'GET', path: '/api/vex/{vexId}', scope: 'vex:read', mutates: false,
    summary: 'A VEX document with full content',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'deleteVexDocument', method: 'DELETE', path: '/api/vex/{vexId}', scope: 'vex:write', mutates: true,
    summary: 'Delete a draft VEX document; 409 otherwise',
    request: { params: vex.vexIdParams }, responses: noContent,
  },
  {
    operationId: 'regenerateVexDocument', method: 'POST', path: '/api/vex/{vexId}/regenerate', scope: 'vex:write', mutates: true,
    summary: 'Regenerate a draft from current dispositions (version + 1)',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('The regenerated draft') },
  },
  {
    operationId: 'submitVexDocument', method: 'POST', path: '/api/vex/{vexId}/submit', scope: 'vex:write', mutates: true,
    summary: 'Submit a draft for approval; locks the release chain',
    request: { params: vex.vexIdParams, body: vex.submitBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'approveVexDocument', method: 'POST', path: '/api/vex/{vexId}/approve', scope: 'vex:write', mutates: true,
    summary: 'Approve a submitted document',
    request: { params: vex.vexIdParams, body: vex.approveBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'rejectVexDocument', method: 'POST', path: '/api/vex/{vexId}/reject', scope: 'vex:write', mutates: true,
    summary: 'Reject a submitted document back to draft; unlocks the release chain',
    request: { params: vex.vexIdParams, body: vex.rejectBody }, responses: { 200: anyJson('The document') },
  },
  {
    operationId: 'publishVexDocument', method: 'POST', path: '/api/vex/{vexId}/publish', scope: 'vex:write', mutates: true,
    summary: 'Publish an approved document as an immutable, signed public disclosure',
    request: { params: vex.vexIdParams, body: vex.publishBody }, responses: { 200: anyJson('`{ vexDocument, disclosure }`') },
  },
  {
    operationId: 'listVexApprovals', method: 'GET', path: '/api/vex/{vexId}/approvals', scope: 'vex:read', mutates: false,
    summary: 'Approval trail of a VEX document',
    request: { params: vex.vexIdParams }, responses: { 200: anyJson('`{ data: [approval record] }`') },
  },
]);
