/**
 * Seals what is not sealed yet (src/domain/audit/auditSeal.ts, as every reader of the chains
 * does), reads every audit event of a test service's database and verifies the hash chains with
 * the verifier `npm run admin -- audit verify` uses (src/domain/audit/auditVerify.ts).
 */
import type { AuditEventRow } from '../../src/domain/audit/auditEvent.ts';
import { type ChainVerdict, verifyChains } from '../../src/domain/audit/auditVerify.ts';
import { queryRows } from '../../src/db/rows.ts';
import { sealAuditChains } from '../../src/domain/audit/auditSeal.ts';
import { Prisma } from '../../generated/prisma/client.ts';
import type { TestService } from './testService.ts';

/** The verdict on every account's chain in `service`'s database. */
export async function verifyAuditChainsOf(service: TestService): Promise<ChainVerdict[]> {
  await sealAuditChains(service.runtime.db);
  const rows = await queryRows<AuditEventRow>(service.runtime.db.sql, Prisma.sql`SELECT *, seq::int AS seq FROM audit_events`);
  return verifyChains(
    rows.map((row) => ({
      ...row,
      seq: Number(row.seq),
      prevHash: Buffer.from(row.prevHash).toString('hex'),
      hash: Buffer.from(row.hash).toString('hex'),
    })),
  );
}
