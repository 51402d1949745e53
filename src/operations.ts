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
import { createPassTemplate } from './resources/passTemplates/createPassTemplate.ts';
import { listPassTemplates } from './resources/passTemplates/listPassTemplates.ts';
import { getPassTemplate } from './resources/passTemplates/getPassTemplate.ts';
import { updatePassTemplate } from './resources/passTemplates/updatePassTemplate.ts';
import { getLegacyPassTemplate } from './resources/passTemplates/getLegacyPassTemplate.ts';
import { createPass } from './resources/passes/createPass.ts';
import { listPasses } from './resources/passes/listPasses.ts';
import { getPass } from './resources/passes/getPass.ts';
import { updatePass } from './resources/passes/updatePass.ts';
import { nullifyPass } from './resources/passes/nullifyPass.ts';
import { getLoyalty } from './resources/loyalty/getLoyalty.ts';
import { updateLoyalty } from './resources/loyalty/updateLoyalty.ts';
import { createAccount } from './resources/admin/createAccount.ts';
import { listAccounts } from './resources/admin/listAccounts.ts';
import { createApiToken } from './resources/admin/createApiToken.ts';
import { listApiTokens } from './resources/admin/listApiTokens.ts';
import { revokeApiToken } from './resources/admin/revokeApiToken.ts';
import { createEntity } from './resources/admin/createEntity.ts';
import { updateEntity } from './resources/admin/updateEntity.ts';
import { listAccountEntities } from './resources/admin/listAccountEntities.ts';
import { createReader } from './resources/readers/createReader.ts';
import { getReader } from './resources/readers/getReader.ts';
import { updateReader } from './resources/readers/updateReader.ts';
import { getReaderConfiguration } from './resources/readerConfigurations/getReaderConfiguration.ts';
import { updateReaderConfiguration } from './resources/admin/updateReaderConfiguration.ts';
import { rotateReaderNfcKey } from './resources/admin/rotateReaderNfcKey.ts';
import { rotateReaderApiKey } from './resources/admin/rotateReaderApiKey.ts';
import { logScan } from './resources/scans/logScan.ts';
import { createScan } from './resources/scans/createScan.ts';
import { getScan } from './resources/scans/getScan.ts';
import { listScans } from './resources/scans/listScans.ts';
import { listBatches } from './resources/batches/listBatches.ts';
import { getBatch } from './resources/batches/getBatch.ts';
import { createWalletMessagingBatch } from './resources/batches/createWalletMessagingBatch.ts';
import { sendBatchNow } from './resources/batches/sendBatchNow.ts';
import { cancelBatch } from './resources/batches/cancelBatch.ts';
import { getBatchErrors } from './resources/batches/getBatchErrors.ts';

export const handlers: HandlerMap = {
  getHealth,
  getReadiness,
  listEntities,
  getEntity,
  createPassTemplate,
  listPassTemplates,
  getPassTemplate,
  updatePassTemplate,
  getLegacyPassTemplate,
  createPass,
  listPasses,
  getPass,
  updatePass,
  nullifyPass,
  getLoyalty,
  updateLoyalty,
  createAccount,
  listAccounts,
  createApiToken,
  listApiTokens,
  revokeApiToken,
  createEntity,
  updateEntity,
  listAccountEntities,
  createReader,
  getReader,
  updateReader,
  getReaderConfiguration,
  updateReaderConfiguration,
  rotateReaderNfcKey,
  rotateReaderApiKey,
  logScan,
  createScan,
  getScan,
  listScans,
  listBatches,
  getBatch,
  createWalletMessagingBatch,
  sendBatchNow,
  cancelBatch,
  getBatchErrors,
};
