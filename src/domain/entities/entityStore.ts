/**
 * Database access for entities. Every read is scoped to an account.
 *
 * @module domain/entities/entityStore
 */
import type { PrismaClient, PrismaExecutor } from '../../db/database.ts';
import type { Entity } from '../../../generated/prisma/client.ts';
import { pageWindow, type PageRequest } from '../../db/pagination.ts';
import { NotFoundError } from '../../errors.ts';

export type EntityRow = Entity;

/** Deeplink template changes: a string sets it, null resets to the default, absent keeps it. */
export interface DeeplinkChanges {
  apple?: string | null;
  google?: string | null;
}

/** A page of an account's entities, oldest first, and the total count. */
export async function selectEntityPage(prisma: PrismaClient, accountId: string, page: PageRequest) {
  const where = { accountId };
  const [rows, total] = await Promise.all([
    prisma.entity.findMany({ where, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], ...pageWindow(page) }),
    prisma.entity.count({ where }),
  ]);
  return { rows, total };
}

/** One entity of an account, or null (also for another account's entity). */
export function selectAccountEntity(prisma: PrismaExecutor, accountId: string, id: string): Promise<EntityRow | null> {
  return prisma.entity.findFirst({ where: { id, accountId } });
}

/**
 * One entity of an account.
 * @param parameter The path parameter that named it, for the error's `source`.
 * @throws NotFoundError when it does not exist or belongs to another account.
 */
export async function requireAccountEntity(prisma: PrismaExecutor, accountId: string, id: string, parameter: string): Promise<EntityRow> {
  const row = await selectAccountEntity(prisma, accountId, id);
  if (!row) throw new NotFoundError(`No entity with id ${id} exists.`, { parameter });
  return row;
}

/**
 * An entity of any account (administration only).
 * @throws NotFoundError naming the `entityId` path parameter when it does not exist.
 */
export async function requireEntityById(prisma: PrismaExecutor, id: string): Promise<EntityRow> {
  const row = await prisma.entity.findUnique({ where: { id } });
  if (!row) throw new NotFoundError(`No entity with id ${id} exists.`, { parameter: 'entityId' });
  return row;
}

/** Creates an entity in an account (also inside a transaction). */
export function insertEntity(prisma: PrismaExecutor, accountId: string, input: { name: string; passDeeplinks?: DeeplinkChanges }) {
  return prisma.entity.create({
    data: {
      accountId,
      name: input.name,
      appleDeeplinkTemplate: input.passDeeplinks?.apple ?? null,
      googleDeeplinkTemplate: input.passDeeplinks?.google ?? null,
    },
  });
}

/** Updates an entity by id (any account: administration only). Returns null when it does not exist. */
export async function updateEntityById(prisma: PrismaExecutor, id: string, input: { name?: string; passDeeplinks?: DeeplinkChanges }) {
  const { count } = await prisma.entity.updateMany({
    where: { id },
    data: {
      name: input.name,
      appleDeeplinkTemplate: input.passDeeplinks?.apple,
      googleDeeplinkTemplate: input.passDeeplinks?.google,
    },
  });
  return count === 0 ? null : prisma.entity.findUniqueOrThrow({ where: { id } });
}
