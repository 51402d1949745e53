/**
 * The handler of every operationId in the contract. The {@link HandlerMap} type makes the
 * compiler reject a missing or unknown operation; `operationHandlers` (src/http/routes.ts) checks the same at start.
 *
 * @module operations
 */
import type { HandlerMap } from './http/operation.ts';
import { getHealth } from './api/health/getHealth.ts';
import { sendMcpMessage } from './api/aiAgents/sendMcpMessage.ts';
import { getReadiness } from './api/health/getReadiness.ts';
import { getMetrics } from './api/monitoring/getMetrics.ts';
import { listEntities } from './api/entities/listEntities.ts';
import { getEntity } from './api/entities/getEntity.ts';
import { getStats } from './api/stats/getStats.ts';
import { listAuditEvents } from './api/audit/listAuditEvents.ts';
import { listAllAuditEvents } from './api/administration/listAllAuditEvents.ts';
import { createPassTemplate } from './api/passTemplates/createPassTemplate.ts';
import { listPassTemplates } from './api/passTemplates/listPassTemplates.ts';
import { getPassTemplate } from './api/passTemplates/getPassTemplate.ts';
import { updatePassTemplate } from './api/passTemplates/updatePassTemplate.ts';
import { getLegacyPassTemplate } from './api/passTemplates/getLegacyPassTemplate.ts';
import { getPassTemplatePreview } from './api/passTemplates/getPassTemplatePreview.ts';
import { createPassTemplatePreview } from './api/passTemplates/createPassTemplatePreview.ts';
import { duplicatePassTemplate } from './api/passTemplates/duplicatePassTemplate.ts';
import { archivePassTemplate } from './api/passTemplates/archivePassTemplate.ts';
import { unarchivePassTemplate } from './api/passTemplates/unarchivePassTemplate.ts';
import { getPassPreview } from './api/passes/getPassPreview.ts';
import { createPass } from './api/passes/createPass.ts';
import { preflightCreatePass } from './api/passes/preflightCreatePass.ts';
import { listPasses } from './api/passes/listPasses.ts';
import { getPass } from './api/passes/getPass.ts';
import { updatePass } from './api/passes/updatePass.ts';
import { nullifyPass } from './api/passes/nullifyPass.ts';
import { getLoyalty } from './api/loyalty/getLoyalty.ts';
import { updateLoyalty } from './api/loyalty/updateLoyalty.ts';
import { createAccount } from './api/administration/createAccount.ts';
import { listAccounts } from './api/administration/listAccounts.ts';
import { createApiToken } from './api/administration/createApiToken.ts';
import { listApiTokens } from './api/administration/listApiTokens.ts';
import { revokeApiToken } from './api/administration/revokeApiToken.ts';
import { createApiKey } from './api/apiKeys/createApiKey.ts';
import { listApiKeys } from './api/apiKeys/listApiKeys.ts';
import { revokeApiKey } from './api/apiKeys/revokeApiKey.ts';
import { createEntity } from './api/administration/createEntity.ts';
import { updateEntity } from './api/administration/updateEntity.ts';
import { listAccountEntities } from './api/administration/listAccountEntities.ts';
import { signInWithPassword } from './api/signIn/signInWithPassword.ts';
import { createPasskeySignInOptions } from './api/signIn/createPasskeySignInOptions.ts';
import { signInWithPasskey } from './api/signIn/signInWithPasskey.ts';
import { getSession } from './api/signIn/getSession.ts';
import { updateSession } from './api/signIn/updateSession.ts';
import { signOut } from './api/signIn/signOut.ts';
import { listSessions } from './api/signIn/listSessions.ts';
import { endSession } from './api/signIn/endSession.ts';
import { endAllSessions } from './api/signIn/endAllSessions.ts';
import { listPasskeys } from './api/signIn/listPasskeys.ts';
import { createPasskeyRegistrationOptions } from './api/signIn/createPasskeyRegistrationOptions.ts';
import { registerPasskey } from './api/signIn/registerPasskey.ts';
import { deletePasskey } from './api/signIn/deletePasskey.ts';
import { setPassword } from './api/signIn/setPassword.ts';
import { createTotpEnrollment } from './api/signIn/createTotpEnrollment.ts';
import { confirmTotpEnrollment } from './api/signIn/confirmTotpEnrollment.ts';
import { startSingleSignOn } from './api/signIn/startSingleSignOn.ts';
import { finishSingleSignOn } from './api/signIn/finishSingleSignOn.ts';
import { listMembers } from './api/people/listMembers.ts';
import { updateMember } from './api/people/updateMember.ts';
import { deleteMember } from './api/people/deleteMember.ts';
import { listInvitations } from './api/people/listInvitations.ts';
import { createInvitation } from './api/people/createInvitation.ts';
import { revokeInvitation } from './api/people/revokeInvitation.ts';
import { createInvitationAcceptanceOptions } from './api/people/createInvitationAcceptanceOptions.ts';
import { acceptInvitation } from './api/people/acceptInvitation.ts';
import { getSingleSignOn } from './api/people/getSingleSignOn.ts';
import { setSingleSignOn } from './api/people/setSingleSignOn.ts';
import { deleteSingleSignOn } from './api/people/deleteSingleSignOn.ts';
import { createAccountInvitation } from './api/administration/createAccountInvitation.ts';
import { createReader } from './api/readers/createReader.ts';
import { listReaders } from './api/readers/listReaders.ts';
import { getReader } from './api/readers/getReader.ts';
import { updateReader } from './api/readers/updateReader.ts';
import { getReaderConfiguration } from './api/readers/getReaderConfiguration.ts';
import { updateReaderConfiguration } from './api/administration/updateReaderConfiguration.ts';
import { rotateReaderNfcKey } from './api/administration/rotateReaderNfcKey.ts';
import { rotateReaderApiKey } from './api/administration/rotateReaderApiKey.ts';
import { logScan } from './api/scans/logScan.ts';
import { createScan } from './api/scans/createScan.ts';
import { getScan } from './api/scans/getScan.ts';
import { listScans } from './api/scans/listScans.ts';
import { listBatches } from './api/batches/listBatches.ts';
import { getBatch } from './api/batches/getBatch.ts';
import { createWalletMessagingBatch } from './api/batches/createWalletMessagingBatch.ts';
import { sendBatchNow } from './api/batches/sendBatchNow.ts';
import { cancelBatch } from './api/batches/cancelBatch.ts';
import { getBatchErrors } from './api/batches/getBatchErrors.ts';
import { getBatchResults } from './api/batches/getBatchResults.ts';
import { createPassCreationBatch } from './api/batches/createPassCreationBatch.ts';
import { createPassUpdateBatch } from './api/batches/createPassUpdateBatch.ts';
import { listAppleConfigurations } from './api/administration/listAppleConfigurations.ts';
import { getAppleConfiguration } from './api/administration/getAppleConfiguration.ts';
import { setAppleConfiguration } from './api/administration/setAppleConfiguration.ts';
import { deleteAppleConfiguration } from './api/administration/deleteAppleConfiguration.ts';
import { setGoogleConfiguration } from './api/administration/setGoogleConfiguration.ts';
import { getGoogleConfiguration } from './api/administration/getGoogleConfiguration.ts';
import { deleteGoogleConfiguration } from './api/administration/deleteGoogleConfiguration.ts';
import { getPassTemplateImage } from './api/holderPages/getPassTemplateImage.ts';
import { downloadApplePass } from './api/holderPages/downloadApplePass.ts';
import { getHolderPassPage } from './api/holderPages/getHolderPassPage.ts';
import { getGoogleHolderPassPage } from './api/holderPages/getGoogleHolderPassPage.ts';
import { listPassRegistrations } from './api/passes/listPassRegistrations.ts';
import { listPassDeliveryAttempts } from './api/passes/listPassDeliveryAttempts.ts';
import { listPassWebhookDeliveryAttempts } from './api/passes/listPassWebhookDeliveryAttempts.ts';
import { listAppleDeviceLogs } from './api/administration/listAppleDeviceLogs.ts';
import { getDatabaseBackup } from './api/administration/getDatabaseBackup.ts';
import { registerDevice } from './api/appleWalletWebService/registerDevice.ts';
import { unregisterDevice } from './api/appleWalletWebService/unregisterDevice.ts';
import { listUpdatedPasses } from './api/appleWalletWebService/listUpdatedPasses.ts';
import { getLatestApplePass } from './api/appleWalletWebService/getLatestApplePass.ts';
import { logAppleDeviceMessages } from './api/appleWalletWebService/logAppleDeviceMessages.ts';
import { logGoogleWalletEvent } from './api/googleWalletCallbacks/logGoogleWalletEvent.ts';
import { createWebhookSubscription } from './api/webhooks/createWebhookSubscription.ts';
import { listWebhookSubscriptions } from './api/webhooks/listWebhookSubscriptions.ts';
import { getWebhookSubscription } from './api/webhooks/getWebhookSubscription.ts';
import { updateWebhookSubscription } from './api/webhooks/updateWebhookSubscription.ts';
import { deleteWebhookSubscription } from './api/webhooks/deleteWebhookSubscription.ts';
import { rotateWebhookSubscriptionSecret } from './api/webhooks/rotateWebhookSubscriptionSecret.ts';
import { listWebhookDeliveryAttempts } from './api/webhooks/listWebhookDeliveryAttempts.ts';
import { sendWebhookTestEvent } from './api/webhooks/sendWebhookTestEvent.ts';
import { getFavicon } from './api/favicon/getFavicon.ts';

export const handlers: HandlerMap = {
  signInWithPassword,
  createPasskeySignInOptions,
  signInWithPasskey,
  getSession,
  updateSession,
  signOut,
  listSessions,
  endSession,
  endAllSessions,
  listPasskeys,
  createPasskeyRegistrationOptions,
  registerPasskey,
  deletePasskey,
  setPassword,
  createTotpEnrollment,
  confirmTotpEnrollment,
  startSingleSignOn,
  finishSingleSignOn,
  listMembers,
  updateMember,
  deleteMember,
  listInvitations,
  createInvitation,
  revokeInvitation,
  createInvitationAcceptanceOptions,
  acceptInvitation,
  getSingleSignOn,
  setSingleSignOn,
  deleteSingleSignOn,
  createAccountInvitation,
  getHealth,
  sendMcpMessage,
  getReadiness,
  getMetrics,
  getFavicon,
  listEntities,
  getEntity,
  getStats,
  listAuditEvents,
  listAllAuditEvents,
  createPassTemplate,
  listPassTemplates,
  getPassTemplate,
  updatePassTemplate,
  getLegacyPassTemplate,
  getPassTemplatePreview,
  createPassTemplatePreview,
  duplicatePassTemplate,
  archivePassTemplate,
  unarchivePassTemplate,
  createPass,
  preflightCreatePass,
  listPasses,
  getPass,
  getPassPreview,
  updatePass,
  nullifyPass,
  getLoyalty,
  updateLoyalty,
  createAccount,
  listAccounts,
  createApiToken,
  listApiTokens,
  revokeApiToken,
  createApiKey,
  listApiKeys,
  revokeApiKey,
  createEntity,
  updateEntity,
  listAccountEntities,
  createReader,
  listReaders,
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
  listPassWebhookDeliveryAttempts,
  listAppleDeviceLogs,
  getDatabaseBackup,
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
