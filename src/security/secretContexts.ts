/**
 * Where each kind of sealed secret is stored, as the AES-GCM additional data it is bound to
 * (src/security/secrets.ts): a ciphertext decrypts only with the context of the row and column it
 * was sealed for, so a value copied to another row or column is useless. One place, so that the
 * module that seals a secret and the modules that open it agree.
 *
 * @module security/secretContexts
 */

/** The private key of an Apple configuration (the row's id). */
export function applePrivateKeyContext(configurationId: string): string {
  return `appleConfiguration/${configurationId}/privateKey`;
}

/** The Apple Wallet `authenticationToken` of a pass. */
export function appleAuthenticationTokenContext(passId: string): string {
  return `pass/${passId}/appleAuthenticationToken`;
}

/** The signing secret of a webhook subscription. */
export function webhookSecretContext(subscriptionId: string): string {
  return `webhookSubscription/${subscriptionId}/secret`;
}

/** The service account JSON key of a Google configuration (the row's id). */
export function googleServiceAccountKeyContext(configurationId: string): string {
  return `googleConfiguration/${configurationId}/serviceAccountKey`;
}

/** A sealed attribute of an entity's reader configuration (its row is keyed by the entity id). */
export function readerConfigurationSecretContext(entityId: string, attribute: 'nfcPrivateKey' | 'readerConfigurationApiKey'): string {
  return `readerConfiguration/${entityId}/${attribute}`;
}

/** The TOTP secret (RFC 6238) of a person. */
export function totpSecretContext(personId: string): string {
  return `person/${personId}/totpSecret`;
}

/** The OpenID Connect client secret of an account's single sign-on (the row is keyed by the account id). */
export function singleSignOnClientSecretContext(accountId: string): string {
  return `singleSignOn/${accountId}/clientSecret`;
}
