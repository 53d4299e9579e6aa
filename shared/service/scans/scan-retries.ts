/**
 * How often a scan is tried before its SBOM is marked failed instead of
 * staying queued. Dependency-free: the CDK stack reads it too.
 */

/**
 * Deliveries of one scan message before SQS moves it to the dead-letter queue
 * (the stack's redrive policy uses this number); the worker marks the scan
 * failed when the last delivery fails.
 */
export const SCAN_QUEUE_MAX_RECEIVES = 3;

/** Re-dispatches by the recovery sweep of a scan that keeps dying with its process. */
export const SCAN_MAX_RECOVERIES = 3;
