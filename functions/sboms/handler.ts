import { createGroupHandler } from '../../shared/http/group-handler';
import { contentDisposition, defaultSbomFileName, sbomMediaType, Sboms } from '../../shared/sboms/sboms';
import { toSbomView } from '../../shared/sboms/sbom-store';

export const handler = createGroupHandler('sboms', {
  uploadSbom: async ({ caller, body }) => ({ status: 201, body: { data: toSbomView(await Sboms.upload(caller.teamId, caller.actor, body)) } }),
  createSbomUpload: async ({ caller, body }) => ({ status: 201, body: { data: await Sboms.createUpload(caller.teamId, caller.actor, body) } }),
  completeSbomUpload: async ({ caller, params }) => ({
    status: 201,
    body: { data: toSbomView(await Sboms.completeUpload(caller.teamId, caller.actor, params.uploadId)) },
  }),
  getSbom: async ({ caller, params }) => ({ status: 200, body: { data: toSbomView((await Sboms.resolve(caller.teamId, params.id)).sbom) } }),
  downloadSbom: async ({ caller, params }) => {
    const { sbom, bytes } = await Sboms.download(caller.teamId, params.id);
    return {
      status: 200,
      raw: bytes,
      contentType: sbomMediaType(sbom),
      headers: { 'Content-Disposition': contentDisposition(sbom.fileName, defaultSbomFileName(sbom)), 'X-Content-Hash': sbom.fileHash },
    };
  },
});
