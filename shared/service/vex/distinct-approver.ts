/**
 * The distinct-approver rule (team setting `requireDistinctApprover`) is about people, not credentials: the person
 * behind a session is its member, behind an API key the member it acts for, behind a CI token its trust policy's
 * owner (shared/service/identity/actor.ts `personOf`). One person may not submit with one credential and approve
 * with another.
 */
import { personOf, type Actor } from '../identity/actor';

/** Who submitted a document: the credential's actor, and the person behind it. */
export interface Submitter {
  id: string;
  name: string;
  /** Absent on documents submitted before the person was recorded: their actor id stands for it. */
  personId?: string;
}

export function submitterOf(actor: Actor): Submitter {
  return { id: actor.id, name: actor.name, personId: personOf(actor) };
}

export function isSubmitter(submitter: Submitter | null, approver: Actor): boolean {
  if (!submitter) return false;
  return submitter.id === approver.id || (submitter.personId ?? submitter.id) === personOf(approver);
}
