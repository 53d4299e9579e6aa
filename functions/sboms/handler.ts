import { createGroupHandler } from '../../shared/service/http/group-handler';
import { sbomRoutes } from '../../shared/service/http/route-groups/sboms';
import {
  contentDisposition,
  defaultSbomFileName,
  sbomMediaType,
  Sboms,
  type UploadOutcome,
} from '../../shared/service/sboms/sboms';
import { toSbomView } from '../../shared/service/sboms/sbom-store';
import { parseSbomUpload } from '../../shared/service/sboms/upload-input';

/** 201 for a new SBOM, 200 when the release already held the same bytes (issue 13 item 3: CI retries are safe). */
function uploaded(outcome: UploadOutcome) {
  const body = { data: toSbomView(outcome.sbom) };
  return outcome.created ? { status: 201 as const, body } : { status: 200 as const, body };
}

export const handler = createGroupHandler(sbomRoutes, {
  uploadSbom: async ({ caller, query, headers, rawBody }) =>
    uploaded(await Sboms.receiveFile(caller.teamId, caller.actor, parseSbomUpload(query, headers, rawBody))),
  createSbomUpload: async ({ caller, body }) => ({
    status: 201,
    body: { data: await Sboms.createUpload(caller.teamId, caller.actor, body) },
  }),
  completeSbomUpload: async ({ caller, params }) =>
    uploaded(await Sboms.completeUpload(caller.teamId, caller.actor, params.uploadId)),
  listReleaseSboms: async ({ caller, params, query }) => {
    const page = await Sboms.listByRelease(caller.teamId, params.releaseId, query);
    return { status: 200, body: { data: page.data.map(toSbomView), meta: page.meta } };
  },
  getSbom: async ({ caller, params }) => ({
    status: 200,
    body: { data: toSbomView((await Sboms.resolve(caller.teamId, params.id)).sbom) },
  }),
  deleteSbom: async ({ caller, params }) => {
    await Sboms.delete(caller.teamId, caller.actor, params.id);
    return { status: 204 };
  },
  downloadSbom: async ({ caller, params }) => {
    const { sbom, bytes } = await Sboms.download(caller.teamId, params.id);
    return {
      status: 200,
      raw: bytes,
      contentType: sbomMediaType(sbom),
      headers: {
        'Content-Disposition': contentDisposition(sbom.fileName, defaultSbomFileName(sbom)),
        'X-Content-Hash': sbom.fileHash,
      },
    };
  },
});
