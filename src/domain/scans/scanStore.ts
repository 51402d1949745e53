/**
 * Database access for scans (PassEntry API reference: the scan resource). Every read is scoped to an account. A scan references
 * its reader by the reader's internal id (never the client-chosen one), so renaming a reader
 * keeps its scans; reads bring the pass and the reader along for `included`.
 *
 * @module domain/scans/scanStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import type { Prisma, Scan, ScanStatus, ScanType, ScanValidationType } from '../../../generated/prisma/client.ts';
import { PASS_INCLUDE, type PassRow } from '../passes/passStore.ts';
import type { ReaderRow } from '../readers/readerStore.ts';

/** A scan with its pass (as pass reads return it) and its reader. */
export type ScanRow = Scan & { pass: PassRow; reader: ReaderRow };

const SCAN_INCLUDE = { pass: { include: PASS_INCLUDE }, reader: true } as const;

/** The columns of a new scan. */
export interface NewScan {
  accountId: string;
  passId: string;
  /** The reader's internal id (`ReaderRow.id`). */
  readerId: string;
  scanType: ScanType;
  scanValue: string;
  validationType: ScanValidationType;
  status: ScanStatus;
  statusDetail: string;
  scannedAt: Date;
}

/** Stores a scan (its id is a new UUID v7) and returns it with its pass and reader. */
export function insertScan(tx: PrismaExecutor, scan: NewScan): Promise<ScanRow> {
  return tx.scan.create({ data: scan, include: SCAN_INCLUDE });
}

/** Changes a stored scan's outcome (a validated scan whose balance change was refused). */
export function updateScanOutcome(tx: PrismaExecutor, id: string, status: ScanStatus, statusDetail: string): Promise<ScanRow> {
  return tx.scan.update({ where: { id }, data: { status, statusDetail }, include: SCAN_INCLUDE });
}

/** A scan of an account, or null (also for another account's scan). */
export function selectAccountScan(prisma: PrismaExecutor, accountId: string, id: string): Promise<ScanRow | null> {
  return prisma.scan.findFirst({ where: { id, accountId }, include: SCAN_INCLUDE });
}

/** Filters of a scan list (all given must match); ids are internal ones. */
export interface ScanFilters {
  readerId?: string;
  passId?: string;
  status?: ScanStatus;
  /** Inclusive. */
  scannedAfter?: Date;
  /** Exclusive. */
  scannedBefore?: Date;
}

/** A page of an account's scans, newest first (`scannedAt`, then id), and the total count. */
export async function selectScanPage(prisma: PrismaExecutor, accountId: string, filters: ScanFilters, page: PageRequest) {
  const where: Prisma.ScanWhereInput = {
    accountId,
    ...(filters.readerId ? { readerId: filters.readerId } : {}),
    ...(filters.passId ? { passId: filters.passId } : {}),
    ...(filters.status ? { status: filters.status } : {}),
    ...(filters.scannedAfter || filters.scannedBefore
      ? { scannedAt: { ...(filters.scannedAfter ? { gte: filters.scannedAfter } : {}), ...(filters.scannedBefore ? { lt: filters.scannedBefore } : {}) } }
      : {}),
  };
  const [rows, total] = await Promise.all([
    prisma.scan.findMany({ where, orderBy: [{ scannedAt: 'desc' }, { id: 'desc' }], include: SCAN_INCLUDE, ...pageWindow(page) }),
    prisma.scan.count({ where }),
  ]);
  return { rows, total };
}
