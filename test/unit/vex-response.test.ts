/**
 * The VEX document responses embed the stored document text as `data.content`
 * without parsing it (shared/vex/vex-store.ts `vexViewBody`): the body must be
 * the same JSON as the view with the parsed document in it.
 */
import { describe, expect, it } from '@jest/globals';
import { generateVex, serializeVex } from '../../shared/vex/formats';
import { toVexView, vexViewBody, type VexDocumentRecord } from '../../shared/vex/vex-store';
import { buildSampleVexInput } from '../bench/vex-generation';

const record: VexDocumentRecord = {
  id: '7d1f0a5e-3c2b-4a19-9e8d-6f5a4b3c2d1e', teamId: '0b5d3c9e-7f60-4d4b-9a1e-5d7c2b1f0a11', productId: '5a0f6c7e-1d2b-4c3a-8e9f-0a1b2c3d4e5f',
  releaseId: '9c8b7a6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d', format: 'csaf', workflowStatus: 'published', author: 'Jane "PSIRT" Analyst', version: 2,
  contentKey: 'k', inputKey: 'i', contentHash: 'abc', sbomIds: ['s1'], findingCount: 11, createdAt: '2026-02-01T09:00:00.000Z', updatedAt: '2026-02-02T09:00:00.000Z',
  createdBy: { id: 'm1', name: 'Jane' }, submittedBy: { id: 'm2', name: 'Ana\u00efs' }, approvedAt: '2026-02-02T08:00:00.000Z', publishedAt: '2026-02-02T09:00:00.000Z',
  disclosure: { id: 'd1', slug: 'acme-2-4-1-csaf-v2' }, revisions: [{ version: 1, date: '2026-02-01T09:00:00.000Z', summary: 'Initial version' }], revision: 5,
};

describe('vexViewBody', () => {
  it.each(['cyclonedx_vex', 'openvex', 'csaf'] as const)('is the view with the %s document as data.content', (format) => {
    const content = serializeVex(generateVex(format, buildSampleVexInput()));

    const body = vexViewBody({ ...record, format }, content);

    expect(JSON.parse(body)).toEqual({ data: { ...toVexView({ ...record, format }), content: JSON.parse(content) } });
    expect(Object.keys((JSON.parse(body) as { data: object }).data).at(-1)).toBe('content');
  });
});
