/** The signer's hash (shared/service/aws-sha256.ts): the digests node's own hash and HMAC give, keys made once or not. */
import { describe, expect, it } from '@jest/globals';
import { createHash, createHmac } from 'node:crypto';
import { NodeSha256 } from '../../shared/service/aws-sha256';

const bytes = (text: string) => new TextEncoder().encode(text);

describe('NodeSha256', () => {
  it('hashes and HMACs as node does, for a key met again and after a reset', async () => {
    const plain = new NodeSha256();
    plain.update(bytes('payload'));
    expect(Buffer.from(await plain.digest()).toString('hex')).toBe(
      createHash('sha256').update('payload').digest('hex'),
    );
    for (const secret of ['day-key', bytes('day-key'), 'day-key']) {
      const hmac = new NodeSha256(secret);
      hmac.update(bytes('ignored'));
      hmac.reset();
      hmac.update(bytes('string to sign'));
      expect(Buffer.from(await hmac.digest()).toString('hex')).toBe(
        createHmac('sha256', 'day-key').update('string to sign').digest('hex'),
      );
    }
  });
});
