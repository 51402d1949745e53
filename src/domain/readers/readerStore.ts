/**
 * Database access for readers (PassEntry API reference: the reader resource). Every API read and write is scoped to an account.
 *
 * A reader row has two ids: `id`, an internal UUID v7 that never changes and that other tables
 * (scans) reference, and `publicId`, the id the client chose and sees in the API, unique per
 * account and changeable by `updateReader`. Renaming therefore never touches related rows.
 *
 * @module domain/readers/readerStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import type { Reader, ReaderType } from '../../../generated/prisma/client.ts';
import type { components } from '../../../generated/api.d.ts';
import { ConflictError } from '../../errors.ts';
import { isUniqueViolation } from '../../db/prismaErrors.ts';

export type ReaderRow = Reader;

/** The `type` accepted by `createReader` (contract schema `ReaderInputType`). */
export type ReaderInputType = components['schemas']['ReaderInputType'];

/**
 * How the `type` given on create becomes the stored `readerType` (contract `ReaderInputType`;
 * PassEntry stores partner readers as `ServiceReader`, PassEntry API reference: the reader resource and the surface notes).
 */
export const READER_TYPE_OF_INPUT: Record<ReaderInputType, ReaderType> = {
  PartnerReader: 'ServiceReader',
  ServiceReader: 'ServiceReader',
  PassentryReader: 'PassentryReader',
  VtapReader: 'VtapReader',
};

/** The capability flags of a reader (PassEntry API reference: the reader resource; Create a reader). */
export interface ReaderFlags {
  qrEnabled: boolean;
  mifareClassicNfcEnabled: boolean;
  scanEnabled: boolean;
  redeemEnabled: boolean;
  addPointsEnabled: boolean;
  ndefTagScanningEnabled: boolean;
}

/**
 * What a new reader is made of; the password is already hashed. Flags left out take the column
 * defaults, which equal the contract's (`scanEnabled` true, the others false; ReaderCreateRequest).
 */
export interface NewReader extends Partial<ReaderFlags> {
  publicId: string;
  name: string;
  readerType: ReaderType;
  passwordHash: string;
}

/** Changes to a reader; absent members keep their values. */
export interface ReaderChanges extends Partial<ReaderFlags> {
  publicId?: string;
  name?: string;
  passwordHash?: string;
  loggedIn?: boolean;
}

function duplicateId(publicId: string): ConflictError {
  return new ConflictError(`A reader with id ${publicId} already exists in this account.`, { pointer: '/reader/id' });
}

/**
 * Creates a reader of an entity.
 * @param entity The entity (already checked to belong to the caller's account).
 * @throws ConflictError pointing at `/reader/id` when the account already has a reader with that id.
 */
export async function insertReader(prisma: PrismaExecutor, entity: { id: string; accountId: string }, reader: NewReader): Promise<ReaderRow> {
  try {
    return await prisma.reader.create({ data: { ...reader, accountId: entity.accountId, entityId: entity.id } });
  } catch (error) {
    throw isUniqueViolation(error) ? duplicateId(reader.publicId) : error;
  }
}

/** A reader of an account by its public id, or null (also for another account's reader). */
export function selectAccountReader(prisma: PrismaExecutor, accountId: string, publicId: string): Promise<ReaderRow | null> {
  return prisma.reader.findUnique({ where: { accountId_publicId: { accountId, publicId } } });
}

/**
 * A page of an entity's readers ordered by name, then public id, and their total. Uses the
 * readers' entity_id index.
 */
export function selectEntityReaders(prisma: PrismaExecutor, entityId: string, page: PageRequest): Promise<[ReaderRow[], number]> {
  const where = { entityId };
  return Promise.all([prisma.reader.findMany({ where, orderBy: [{ name: 'asc' }, { publicId: 'asc' }], ...pageWindow(page) }), prisma.reader.count({ where })]);
}

/**
 * Updates a reader of an account by its public id, in one statement.
 * @returns The updated row, or null when the account has no reader with that id.
 * @throws ConflictError pointing at `/reader/id` when a rename hits an id the account already uses.
 */
export async function updateAccountReader(prisma: PrismaExecutor, accountId: string, publicId: string, changes: ReaderChanges): Promise<ReaderRow | null> {
  try {
    const [row] = await prisma.reader.updateManyAndReturn({ where: { accountId, publicId }, data: changes });
    return row ?? null;
  } catch (error) {
    throw isUniqueViolation(error) ? duplicateId(changes.publicId ?? publicId) : error;
  }
}

/**
 * Records that a reader was seen: sets `lastSeenAt` to `at` and, when given, `loggedIn`. For the
 * scan operations (a reader that logs or validates a scan is seen), which may call it
 * inside their transaction.
 * @param readerId The internal id (`ReaderRow.id`), not the public one.
 * @param at The time seen (the server clock).
 * @returns False when no reader has that id.
 */
export async function markReaderSeen(prisma: PrismaExecutor, readerId: string, at: Date, options: { loggedIn?: boolean } = {}): Promise<boolean> {
  const { count } = await prisma.reader.updateMany({
    where: { id: readerId },
    data: { lastSeenAt: at, ...(options.loggedIn === undefined ? {} : { loggedIn: options.loggedIn }) },
  });
  return count > 0;
}
