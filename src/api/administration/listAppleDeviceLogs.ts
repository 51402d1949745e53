import type { OperationHandler } from '../../http/operation.ts';
import { pageEnvelope, pageRequest } from '../../http/pagination.ts';
import { pageWindow } from '../../db/pagination.ts';
import { toTimestamp } from '../../domain/serialize.ts';
import { selectDeviceLogPage } from '../../domain/appleDevices/appleDeviceStore.ts';

/** `GET /admin/v1/apple-device-logs`: what Apple Wallet devices logged, newest first. */
export const listAppleDeviceLogs: OperationHandler<'listAppleDeviceLogs'> = async ({ query, url, ctx }) => {
  const page = pageRequest(query, 25);
  const { rows, total } = await selectDeviceLogPage(ctx.db.prisma, pageWindow(page));
  return {
    status: 200,
    body: {
      data: rows.map((row) => ({
        id: String(row.id),
        type: 'appleDeviceLog' as const,
        attributes: { message: row.message, createdAt: toTimestamp(row.createdAt) },
      })),
      ...pageEnvelope(page, total, ctx.baseUrl, url),
    },
  };
};
