/** Disposition rules shared by the triage service and the SLA evaluation (pure; no I/O). */
/**
 * A final decision closes a finding for the SLA: not affected, fixed, or
 * affected with a response (will/can not fix included, as accepted risk).
 */
export function isFinalDecision(disposition: { status: string; response: string | null }): boolean {
  return (
    disposition.status === 'not_affected' ||
    disposition.status === 'fixed' ||
    (disposition.status === 'affected' && disposition.response !== null)
  );
}
