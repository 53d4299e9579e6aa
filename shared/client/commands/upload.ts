/** `vexdesk upload FILE --product SLUG --release VERSION [--create]`: find-or-create, upload, wait for the scan. */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { ApiClient } from '../api-client';
import { UsageError } from '../errors';
import { fetchCounts, findingTotals, waitForScan, type Counts } from '../findings';
import { findOrCreateProduct, findOrCreateRelease } from '../find-or-create';
import { pairs, type Output } from '../output';
import { sendSbom, type UploadRoute } from '../sbom-transport';

export interface UploadInput {
  file: string;
  product: string;
  release: string;
  create: boolean;
  route: UploadRoute;
  timeoutMs: number;
}

export interface UploadResult {
  productId: string;
  releaseId: string;
  sbomId: string;
  componentCount: number;
  findings: ReturnType<typeof findingTotals>;
  /** Not in --json's contract; for the Action's summary. */
  counts: Counts;
}

export async function upload(api: ApiClient, input: UploadInput, out: Output): Promise<UploadResult> {
  let bytes: Buffer;
  try {
    bytes = await readFile(input.file);
  } catch (error) {
    throw new UsageError(`cannot read ${input.file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  if (bytes.length === 0) throw new UsageError(`${input.file} is empty`);
  const product = await findOrCreateProduct(api, input.product, input.create);
  const release = await findOrCreateRelease(api, product.id, input.release, input.create);
  out.progress(
    `${product.created ? 'created' : 'found'} product ${input.product}, ${release.created ? 'created' : 'found'} release ${input.release}`,
  );
  out.progress(`uploading ${basename(input.file)} (${bytes.length} bytes)…`);
  const sent = await sendSbom(api, { releaseId: release.id, fileName: basename(input.file), bytes }, input.route);
  out.progress(
    sent.created
      ? `uploaded SBOM ${sent.sbom.id} (${sent.route})`
      : `the release already holds these bytes: SBOM ${sent.sbom.id}`,
  );
  const scanned = await waitForScan(api, sent.sbom.id, { timeoutMs: input.timeoutMs, progress: out.progress });
  const counts = await fetchCounts(api, { sbomId: scanned.id }, { timeoutMs: input.timeoutMs, progress: out.progress });
  return {
    productId: product.id,
    releaseId: release.id,
    sbomId: scanned.id,
    componentCount: scanned.component_count,
    findings: findingTotals(counts),
    counts,
  };
}

export function printUpload(result: UploadResult, out: Output): void {
  const { productId, releaseId, sbomId, componentCount, findings } = result;
  const human = [
    pairs([
      ['product', productId],
      ['release', releaseId],
      ['sbom', sbomId],
    ]),
    '',
    `${componentCount} components, ${findings.total} findings: ${findings.critical} critical, ${findings.high} high, ${findings.medium} medium, ${findings.low} low, ${findings.none} unrated; ${findings.kev} known exploited; ${findings.untriaged} untriaged`,
  ].join('\n');
  out.result(human, { productId, releaseId, sbomId, componentCount, findings });
}
