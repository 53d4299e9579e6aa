/**
 * The release_locked answer names the VEX document holding the lock and its workflow status.
 * Built where a write found the release locked; one extra read on that error path only.
 */
import { ReleaseLockedError } from '../errors';
import { vexStore } from '../vex/vex-store';
import { releaseStore } from './release-store';

/** For a caller that holds the release item it found locked (`release.lockedBy`). */
export async function releaseLockedError(teamId: string, lockedBy: string | null): Promise<ReleaseLockedError> {
  if (lockedBy === null) return new ReleaseLockedError();
  const holder = await vexStore.resolve(teamId, lockedBy);
  return new ReleaseLockedError({ vexId: lockedBy, status: holder?.document.workflowStatus });
}

/** For a caller whose transaction's lock check failed: reads the release again to find the holder. */
export async function releaseLockedErrorFor(teamId: string, releaseId: string): Promise<ReleaseLockedError> {
  const current = await releaseStore.resolve(teamId, releaseId);
  return releaseLockedError(teamId, current?.release.lockedBy ?? null);
}
