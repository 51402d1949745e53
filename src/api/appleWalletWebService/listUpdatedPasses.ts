import type { OperationHandler } from '../../http/operation.ts';
import { selectUpdatedSerialNumbers } from '../../domain/appleDevices/appleDeviceStore.ts';

/**
 * The time a `passesUpdatedSince` tag stands for: the milliseconds this service writes as
 * `lastUpdated`, or seconds (10 digits) as other servers write; anything else counts as absent.
 */
export function tagTime(tag: string | undefined): Date | null {
  if (!tag || !/^\d{1,16}$/.test(tag)) return null;
  const value = Number(tag);
  return new Date(tag.length <= 10 ? value * 1000 : value);
}

/**
 * `GET /wallet/apple/v1/devices/{deviceLibraryIdentifier}/registrations/{passTypeIdentifier}`
 * (Apple, "Get the list of updatable passes"): the passes of the device and pass type that
 * changed after the tag, with the new tag; 204 when none.
 */
export const listUpdatedPasses: OperationHandler<'listUpdatedPasses'> = async ({ params, query, ctx }) => {
  const { serialNumbers, lastUpdatedMs } = await selectUpdatedSerialNumbers(
    ctx.db.prisma,
    params.deviceLibraryIdentifier,
    params.passTypeIdentifier,
    tagTime(query.passesUpdatedSince),
  );
  if (!serialNumbers.length || lastUpdatedMs === null) return { status: 204, body: undefined };
  return { status: 200, body: { serialNumbers, lastUpdated: String(lastUpdatedMs) } };
};
