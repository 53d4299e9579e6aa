/**
 * The deployment package of a function: `lambda.Code.fromAsset` with CDK
 * local bundling that runs lib/bundling.ts (esbuild's JS API, with plugins)
 * in a child process. Docker is never used: the bundler either writes the
 * bundle or throws, so the required image is a placeholder.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AssetHashType, DockerImage, type BundlingOptions, type ILocalBundling } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { PROJECT_ROOT } from './function-catalog';

const BUILD_SCRIPT = fileURLToPath(new URL('./build-function.ts', import.meta.url));

/**
 * One instance per entry. Its fields are part of CDK's asset cache key (and,
 * when bundling is skipped, of the placeholder hash), so the entry is kept
 * relative to the project: two functions never share a bundle, and the key is
 * the same on every machine.
 */
export class EsbuildLocalBundling implements ILocalBundling {
  constructor(readonly entry: string) {}

  tryBundle(outputDir: string): boolean {
    try {
      // Synchronous, as CDK requires; tsx (a devDependency, like the CDK app's own runner) loads the TypeScript.
      execFileSync(process.execPath, ['--import', 'tsx', BUILD_SCRIPT, join(PROJECT_ROOT, this.entry), outputDir], {
        cwd: PROJECT_ROOT,
        stdio: ['ignore', 'inherit', 'inherit'],
      });
    } catch (error) {
      throw new Error(`esbuild could not bundle ${this.entry}; its errors are printed above`, { cause: error });
    }
    return true;
  }
}

export function functionCode(entry: string): lambda.Code {
  // Fail at synth, as NodejsFunction did, rather than when the asset is staged.
  if (!existsSync(entry)) throw new Error(`Lambda entry ${entry} does not exist`);
  const bundling: BundlingOptions = {
    local: new EsbuildLocalBundling(relative(PROJECT_ROOT, entry)),
    image: DockerImage.fromRegistry('unused-local-bundling-only'),
  };
  // OUTPUT: the asset hash is the bundle's, not the project directory's (which is never copied).
  return lambda.Code.fromAsset(PROJECT_ROOT, { assetHashType: AssetHashType.OUTPUT, bundling });
}
