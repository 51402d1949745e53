/**
 * Verification of the audit log's hash chains (src/domain/audit/auditEvent.ts): every event's
 * hash is recomputed from its content and the previous event's hash, and the positions of each
 * account's events must follow one another. Used by `npm run admin -- audit verify`, which reads
 * the events through the administration API, so the check does not trust the server's own code.
 *
 * A chain whose oldest events were pruned (`AUDIT_RETENTION_DAYS`) starts at a later position:
 * its first kept event's `prevHash` is the anchor the retention job recorded, and the chain is
 * verified from there.
 *
 * @module domain/audit/auditVerify
 */
import { type AuditEventInput, eventHash, GENESIS_HASH } from './auditEvent.ts';

/** An event with its place in the chain, hashes as hex. */
export interface ChainedEvent extends AuditEventInput {
  seq: number;
  prevHash: string;
  hash: string;
}

/** The verdict on one account's chain. */
export interface ChainVerdict {
  accountId: string;
  events: number;
  firstSeq: number;
  lastSeq: number;
  /** Null when the chain verifies; else what is wrong at which position. */
  broken: { seq: number; reason: string } | null;
}

/**
 * Verifies the chain of each account among `events` (any order).
 * @returns One verdict per account, in account order.
 */
export function verifyChains(events: ChainedEvent[]): ChainVerdict[] {
  const byAccount = new Map<string, ChainedEvent[]>();
  for (const event of events) {
    const chain = byAccount.get(event.accountId) ?? [];
    chain.push(event);
    byAccount.set(event.accountId, chain);
  }
  return [...byAccount.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([accountId, chain]) => {
      chain.sort((a, b) => a.seq - b.seq);
      const first = chain[0]!;
      let broken: ChainVerdict['broken'] = null;
      let previous = first.seq === 1 ? GENESIS_HASH.toString('hex') : first.prevHash;
      let expectedSeq = first.seq;
      for (const event of chain) {
        if (event.seq !== expectedSeq) {
          broken = { seq: expectedSeq, reason: `event ${expectedSeq} is missing` };
          break;
        }
        if (event.prevHash !== previous) {
          broken = { seq: event.seq, reason: 'its prevHash is not the previous event’s hash' };
          break;
        }
        const recomputed = eventHash(Buffer.from(previous, 'hex'), event).toString('hex');
        if (recomputed !== event.hash) {
          broken = { seq: event.seq, reason: 'its content does not match its hash (changed)' };
          break;
        }
        previous = event.hash;
        expectedSeq++;
      }
      return { accountId, events: chain.length, firstSeq: first.seq, lastSeq: chain[chain.length - 1]!.seq, broken };
    });
}
