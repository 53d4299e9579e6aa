/** Removes the run's directory made by ./global-setup.ts. */
import { rmSync } from 'node:fs';
import { infraRunDir } from './global-setup';

export default function globalTeardown(): void {
  const dir = infraRunDir();
  if (dir) rmSync(dir, { recursive: true, force: true });
}
