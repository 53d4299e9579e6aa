/**
 * Spec "Limits": SBOM content 10 MB (the file's bytes; UTF-8 bytes of the envelope's string).
 * A plain module, so the console checks a file against it before sending it without bundling zod.
 */
export const MAX_SBOM_BYTES = 10 * 1024 * 1024;
