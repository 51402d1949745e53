import type { OperationHandler } from '../../http/operation.ts';
import { accountOf } from '../../http/operation.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import { selectPassRegistrations } from '../../domain/appleDevices/appleDeviceStore.ts';
import { requirePass } from '../../domain/passes/passStore.ts';

type Outcome = 'delivered' | 'unregistered' | 'badToken' | 'certificateError' | 'retry' | 'rejected';

/**
 * `GET /api/v1/passes/{id}/registrations`: the Apple devices registered for the pass, newest
 * first, with the latest push to each.
 * @throws NotFoundError for a pass the account does not have.
 */
export const listPassRegistrations: OperationHandler<'listPassRegistrations'> = async ({ params, ctx }) => {
  const pass = await requirePass(ctx.db.prisma, accountOf(ctx), params.id);
  const rows = await selectPassRegistrations(ctx.db.prisma, pass.id);
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: row.deviceLibraryIdentifier,
        type: 'appleRegistration' as const,
        attributes: {
          deviceType: 'iphone' as const,
          passTypeIdentifier: row.passTypeIdentifier,
          pushTokenEnd: row.pushToken.slice(-8),
          registeredAt: toTimestamp(row.createdAt),
          renewedAt: toTimestamp(row.renewedAt),
          lastPush: row.pushAt
            ? { at: toTimestamp(row.pushAt), outcome: row.pushOutcome as Outcome, status: row.pushStatus ?? 0, reason: row.pushReason }
            : null,
        },
      })),
    },
  };
};
