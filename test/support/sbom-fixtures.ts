import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bytes of an SBOM under test/fixtures/sboms (see the README there for sources and expected counts). */
export const sbomFixture = (name: string): Buffer =>
  readFileSync(fileURLToPath(new URL(`../fixtures/sboms/${name}`, import.meta.url)));
