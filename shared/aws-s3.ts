/**
 * The S3 client (shared/aws-clients.ts builds and caches it per team). Apart from aws-clients so
 * that only code that uses S3 imports the S3 package: the products and releases functions reach
 * it only through their cascading deletes, which load it on first use (shared/data/object-prefix.ts).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { s3ClientOf } from './aws-clients';

export function s3(): S3Client {
  return s3ClientOf(S3Client);
}
