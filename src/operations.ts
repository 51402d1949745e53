/**
 * The handler of every operationId in the contract. The {@link HandlerMap} type makes the
 * compiler reject a missing or unknown operation; `operationHandlers` (src/http/routes.ts) checks the same at start.
 *
 * @module operations
 */
import type { HandlerMap } from './http/operation.ts';
import { getHealth } from './resources/health/getHealth.ts';
import { getReadiness } from './resources/health/getReadiness.ts';
import { getMetrics } from './resources/monitoring/getMetrics.ts';
import { getFavicon } from './resources/favicon/getFavicon.ts';
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
import { createAccount } from './resources/administration/createAccount.ts';
import { listAccounts } from './resources/administration/listAccounts.ts';
import { createApiToken } from './resources/administration/createApiToken.ts';
import { listApiTokens } from './resources/administration/listApiTokens.ts';
import { revokeApiToken } from './resources/administration/revokeApiToken.ts';
import { createEntity } from './resources/administration/createEntity.ts';
import { updateEntity } from './resources/administration/updateEntity.ts';
import { listAccountEntities } from './resources/administration/listAccountEntities.ts';
import { createReader } from './resources/readers/createReader.ts';
import { getReader } from './resources/readers/getReader.ts';
import { updateReader } from './resources/readers/updateReader.ts';
import { getReaderConfiguration } from './resources/readers/getReaderConfiguration.ts';
import { updateReaderConfiguration } from './resources/administration/updateReaderConfiguration.ts';
import { rotateReaderNfcKey } from './resources/administration/rotateReaderNfcKey.ts';
import { rotateReaderApiKey } from './resources/administration/rotateReaderApiKey.ts';
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
import { getBatchResults } from './resources/batches/getBatchResults.ts';
import { createPassCreationBatch } from './resources/batches/createPassCreationBatch.ts';
import { createPassUpdateBatch } from './resources/batches/createPassUpdateBatch.ts';
import { listAppleConfigurations } from './resources/administration/listAppleConfigurations.ts';
import { getAppleConfiguration } from './resources/administration/getAppleConfiguration.ts';
import { setAppleConfiguration } from './resources/administration/setAppleConfiguration.ts';
import { deleteAppleConfiguration } from './resources/administration/deleteAppleConfiguration.ts';
import { setGoogleConfiguration } from './resources/administration/setGoogleConfiguration.ts';
import { getGoogleConfiguration } from './resources/administration/getGoogleConfiguration.ts';
import { deleteGoogleConfiguration } from './resources/administration/deleteGoogleConfiguration.ts';
import { getPassTemplateImage } from './resources/holderPages/getPassTemplateImage.ts';
import { downloadApplePass } from './resources/holderPages/downloadApplePass.ts';
import { getHolderPassPage } from './resources/holderPages/getHolderPassPage.ts';
import { getGoogleHolderPassPage } from './resources/holderPages/getGoogleHolderPassPage.ts';
import { listPassRegistrations } from './resources/passes/listPassRegistrations.ts';
import { listPassDeliveryAttempts } from './resources/passes/listPassDeliveryAttempts.ts';
import { listAppleDeviceLogs } from './resources/administration/listAppleDeviceLogs.ts';
import { registerDevice } from './resources/appleWalletWebService/registerDevice.ts';
import { unregisterDevice } from './resources/appleWalletWebService/unregisterDevice.ts';
import { listUpdatedPasses } from './resources/appleWalletWebService/listUpdatedPasses.ts';
import { getLatestApplePass } from './resources/appleWalletWebService/getLatestApplePass.ts';
import { logAppleDeviceMessages } from './resources/appleWalletWebService/logAppleDeviceMessages.ts';
import { logGoogleWalletEvent } from './resources/googleWalletCallbacks/logGoogleWalletEvent.ts';
import { createWebhookSubscription } from './resources/webhooks/createWebhookSubscription.ts';
import { listWebhookSubscriptions } from './resources/webhooks/listWebhookSubscriptions.ts';
import { getWebhookSubscription } from './resources/webhooks/getWebhookSubscription.ts';
import { updateWebhookSubscription } from './resources/webhooks/updateWebhookSubscription.ts';
import { deleteWebhookSubscription } from './resources/webhooks/deleteWebhookSubscription.ts';
import { rotateWebhookSubscriptionSecret } from './resources/webhooks/rotateWebhookSubscriptionSecret.ts';
import { listWebhookDeliveryAttempts } from './resources/webhooks/listWebhookDeliveryAttempts.ts';
import { sendWebhookTestEvent } from './resources/webhooks/sendWebhookTestEvent.ts';

export const handlers: HandlerMap = {
  getHealth,
  getReadiness,
  getMetrics,
  getFavicon,
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
  getBatchResults,
  createPassCreationBatch,
  createPassUpdateBatch,
  listAppleConfigurations,
  getAppleConfiguration,
  setAppleConfiguration,
  deleteAppleConfiguration,
  setGoogleConfiguration,
  getGoogleConfiguration,
  deleteGoogleConfiguration,
  downloadApplePass,
  getHolderPassPage,
  getGoogleHolderPassPage,
  getPassTemplateImage,
  listPassRegistrations,
  listPassDeliveryAttempts,
  listAppleDeviceLogs,
  registerDevice,
  unregisterDevice,
  listUpdatedPasses,
  getLatestApplePass,
  logAppleDeviceMessages,
  logGoogleWalletEvent,
  createWebhookSubscription,
  listWebhookSubscriptions,
  getWebhookSubscription,
  updateWebhookSubscription,
  deleteWebhookSubscription,
  rotateWebhookSubscriptionSecret,
  listWebhookDeliveryAttempts,
  sendWebhookTestEvent,
};
