/** Removes the run's directory made by ./global-setup.ts. */
import { rmSync } from 'node:fs';
import { VALIDATION_CACHE_ENV } from './global-setup';

export default function globalTeardown(): void {
  const dir = process.env[VALIDATION_CACHE_ENV];
  if (dir) rmSync(dir, { recursive: true, force: true });
}
