import type { OperationHandler } from '../../http/operation.ts';
import { insertDeviceLogs } from '../../domain/appleDevices/appleDeviceStore.ts';

/**
 * `POST /wallet/apple/v1/log` (Apple, "Log a message"): stores the device's messages for the
 * operator (the newest 10,000, at most 30 days) and answers 200.
 */
export const logAppleDeviceMessages: OperationHandler<'logAppleDeviceMessages'> = async ({ body, write, ctx }) => {
  await write((tx) => insertDeviceLogs(tx, body.logs, ctx.clock.now()));
  ctx.log.info({ messages: body.logs.length }, 'Apple Wallet device messages stored');
  return { status: 200, body: undefined };
};
