/** Audit-coverage scenarios of the products, releases, SBOMs and scans route groups. */
import { uniqueSlug } from '../factories';
import { cycloneDxSbom } from '../seed';
import { dataField, ok, product, release, seeded, type Data, type Scenario, type Team, type WithId } from './scenario';

/**
 * Every upload also starts a background scan, which audits when it finishes; wait for it,
 * so no entry from it lands after the "before" snapshot of the call under test.
 */
async function scanFinished(team: Team, sbomId: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const sbom = await team.api.get<Data<{ scan: { status: string } }>>(`/api/sboms/${sbomId}`);
    if (['completed', 'failed'].includes(sbom.body.data.scan.status)) return;
    if (Date.now() > deadline) throw new Error(`the upload-triggered scan of ${sbomId} did not finish: ${sbom.text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const SBOM = cycloneDxSbom([{ name: 'left-pad', version: '1.3.0', purl: 'pkg:npm/left-pad@1.3.0' }]);

export const catalogScenarios: Record<string, Scenario> = {
  // Nothing to arrange: the team itself is the precondition.
  createProduct: (team) =>
    Promise.resolve({
      act: async () => {
        const response = await team.api.post('/api/products', { name: 'New', slug: uniqueSlug() });
        return { response, entityId: dataField(response, 'id') };
      },
    }),
  updateProduct: async (team) => {
    const { id } = await product(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/products/${id}`, { description: 'changed' }),
        entityId: id,
      }),
    };
  },
  deleteProduct: async (team) => {
    const { id } = await product(team);
    return { act: async () => ({ response: await team.api.delete(`/api/products/${id}`), entityId: id }) };
  },
  createRelease: async (team) => {
    const { id } = await product(team);
    return {
      act: async () => {
        const response = await team.api.post(`/api/products/${id}/releases`, { version: '2.0.0' });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  updateRelease: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => ({
        response: await team.api.put(`/api/releases/${id}`, { status: 'deprecated' }),
        entityId: id,
      }),
    };
  },
  deleteRelease: async (team) => {
    const { release: seededRelease } = await seeded(team);
    return {
      act: async () => ({
        response: await team.api.delete(`/api/releases/${seededRelease.id}`),
        entityId: seededRelease.id,
      }),
    };
  },
  deleteSbom: async (team) => {
    const { sbom } = await seeded(team);
    return { act: async () => ({ response: await team.api.delete(`/api/sboms/${sbom.id}`), entityId: sbom.id }) };
  },
  uploadSbom: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/sboms/upload', {
          releaseId: id,
          content: SBOM,
          fileName: 'bom.json',
        });
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  createSbomUpload: async (team) => {
    const { id } = await release(team);
    return {
      act: async () => {
        const response = await team.api.post('/api/sboms/uploads', {
          releaseId: id,
          fileName: 'large.json',
          size: Buffer.byteLength(SBOM),
        });
        return { response, entityId: dataField(response, 'uploadId') };
      },
    };
  },
  completeSbomUpload: async (team) => {
    const { id } = await release(team);
    const upload = ok(
      await team.api.post<Data<{ uploadId: string; uploadUrl: string }>>('/api/sboms/uploads', {
        releaseId: id,
        fileName: 'large.json',
        size: Buffer.byteLength(SBOM),
      }),
      'create upload',
    ).data;
    const put = await fetch(upload.uploadUrl, { method: 'PUT', body: SBOM });
    if (!put.ok) throw new Error(`PUT to the pre-signed URL failed: ${put.status}`);
    return {
      act: async () => {
        const response = await team.api.post(`/api/sboms/uploads/${upload.uploadId}/complete`);
        return { response, entityId: dataField(response, 'id') };
      },
    };
  },
  triggerCveScan: async (team) => {
    const { id } = await release(team);
    const sbom = ok(
      await team.api.post<WithId>('/api/sboms/upload', { releaseId: id, content: SBOM }),
      'upload SBOM',
    ).data;
    await scanFinished(team, sbom.id);
    return {
      act: async () => ({ response: await team.api.post('/api/cve-scan', { sbomId: sbom.id }), entityId: sbom.id }),
    };
  },
};
