/**
 * Data module of the tokens the OIDC exchange issues and of the CI token ids
 * (`jti`) it has used: the only code that builds or reads their items. Both
 * are global items found by hash (like API key hashes) and expire through the
 * table's TTL attribute; readers still compare the expiry, since TTL deletion
 * lags by up to days.
 */
import { keys } from '../data/keys';
import { tableDefinition } from '../data/table-definition';
import { getItem, transactWrite, TransactionFailedError, tx, type Item, type TransactItem } from '../data/table-client';

const TTL = tableDefinition.timeToLiveAttribute;

export interface WorkloadTokenRecord {
  id: string;
  tokenHash: string;
  teamId: string;
  policyId: string;
  policyName: string;
  scopes: string[];
  issuedAt: string;
  expiresAt: string;
  /** From the CI token's claims, for the audit actor. */
  repository: string | null;
  ref: string | null;
  runId: string | null;
}

export class JtiReplayedError extends Error {
  constructor() {
    super('The OIDC token id was already exchanged');
    this.name = 'JtiReplayedError';
  }
}

function toRecord(item: Item): WorkloadTokenRecord {
  const optional = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    id: String(item.id),
    tokenHash: String(item.tokenHash),
    teamId: String(item.teamId),
    policyId: String(item.policyId),
    policyName: String(item.policyName),
    scopes: item.scopes as string[],
    issuedAt: String(item.issuedAt),
    expiresAt: String(item.expiresAt),
    repository: optional(item.repository),
    ref: optional(item.ref),
    runId: optional(item.runId),
  };
}

export const WorkloadTokenStore = {
  /**
   * Claims the CI token's id and stores the issued token, with the audit entry, in one
   * transaction: a replayed `jti` issues nothing, and no token exists without its claim.
   */
  async issue(
    record: WorkloadTokenRecord,
    jti: { hash: string; expiresAtEpoch: number },
    audit: TransactItem,
  ): Promise<void> {
    try {
      await transactWrite([
        tx.create({
          ...keys.oidcJti(jti.hash),
          entity: 'OidcJti',
          teamId: record.teamId,
          policyId: record.policyId,
          [TTL]: jti.expiresAtEpoch,
        }),
        tx.create({
          ...keys.workloadTokenHash(record.tokenHash),
          entity: 'WorkloadToken',
          ...record,
          [TTL]: Math.ceil(Date.parse(record.expiresAt) / 1000),
        }),
        audit,
      ]);
    } catch (error) {
      if (error instanceof TransactionFailedError && error.failedAt(0)) throw new JtiReplayedError();
      throw error;
    }
  },

  async findByHash(tokenHash: string): Promise<WorkloadTokenRecord | undefined> {
    const item = await getItem(keys.workloadTokenHash(tokenHash));
    return item ? toRecord(item) : undefined;
  },
};
