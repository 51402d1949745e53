/**
 * The handler of every operationId in the contract. The {@link HandlerMap} type makes the
 * compiler reject a missing or unknown operation; `mountOperations` checks the same at start.
 *
 * @module operations
 */
import type { HandlerMap } from './http/operation.ts';
import { getHealth } from './resources/health/getHealth.ts';
import { getReadiness } from './resources/health/getReadiness.ts';
import { listEntities } from './resources/entities/listEntities.ts';
import { getEntity } from './resources/entities/getEntity.ts';
import { createAccount } from './resources/admin/createAccount.ts';
import { listAccounts } from './resources/admin/listAccounts.ts';
import { createApiToken } from './resources/admin/createApiToken.ts';
import { listApiTokens } from './resources/admin/listApiTokens.ts';
import { revokeApiToken } from './resources/admin/revokeApiToken.ts';
import { createEntity } from './resources/admin/createEntity.ts';
import { updateEntity } from './resources/admin/updateEntity.ts';
import { listAccountEntities } from './resources/admin/listAccountEntities.ts';

export const handlers: HandlerMap = {
  getHealth,
  getReadiness,
  listEntities,
  getEntity,
  createAccount,
  listAccounts,
  createApiToken,
  listApiTokens,
  revokeApiToken,
  createEntity,
  updateEntity,
  listAccountEntities,
};
