/** Removing every object under a key prefix of the SBOM bucket (the cascading deletes). */
import { deleteObjects, listObjects } from '../aws-s3';
import { config } from '../config';

export async function deleteSbomBucketPrefix(prefix: string): Promise<void> {
  const bucket = config().sbomBucket;
  let continuationToken: string | undefined;
  do {
    const listing = await listObjects({ Bucket: bucket, Prefix: prefix, ContinuationToken: continuationToken });
    const objects = (listing.Contents ?? []).flatMap((object) => (object.Key ? [{ Key: object.Key }] : []));
    if (objects.length > 0) await deleteObjects({ Bucket: bucket, Delete: { Objects: objects, Quiet: true } });
    continuationToken = listing.IsTruncated ? listing.NextContinuationToken : undefined;
  } while (continuationToken);
}
