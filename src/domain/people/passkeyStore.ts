/**
 * People's passkeys (`passkeys`): WebAuthn credential records
 * (https://www.w3.org/TR/webauthn-3/#credential-record): the credential id, the COSE public key,
 * the signature counter and the transports the browser reported.
 *
 * @module domain/people/passkeyStore
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { ConflictError, NotFoundError } from '../../errors.ts';

/** A passkey as stored. */
export interface PasskeyRow {
  id: string;
  personId: string;
  name: string;
  credentialId: string;
  publicKey: Uint8Array;
  counter: bigint;
  transports: string[];
  createdAt: Date;
  lastUsedAt: Date | null;
}

/** The person's passkeys, oldest first. */
export function listPasskeys(db: PrismaExecutor, personId: string): Promise<PasskeyRow[]> {
  return db.passkey.findMany({ where: { personId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
}

/** The passkey with `credentialId` (base64url), or null. */
export function findPasskeyByCredentialId(db: PrismaExecutor, credentialId: string): Promise<PasskeyRow | null> {
  return db.passkey.findUnique({ where: { credentialId } });
}

/**
 * Stores a verified passkey.
 * @throws ConflictError (409, pointer `/credential`) when the credential is registered already.
 */
export async function insertPasskey(
  tx: PrismaExecutor,
  passkey: { personId: string; name: string; credentialId: string; publicKey: Uint8Array<ArrayBuffer>; counter: number; transports: string[] },
): Promise<PasskeyRow> {
  if (await findPasskeyByCredentialId(tx, passkey.credentialId)) throw new ConflictError('This passkey is registered already.', { pointer: '/credential' });
  return tx.passkey.create({ data: { ...passkey, counter: BigInt(passkey.counter) } });
}

/** Records a sign-in with the passkey: its new signature counter and when. */
export async function recordPasskeyUse(tx: PrismaExecutor, id: string, counter: number, now: Date): Promise<void> {
  await tx.passkey.update({ where: { id }, data: { counter: BigInt(counter), lastUsedAt: now } });
}

/**
 * Deletes one of the person's passkeys.
 * @throws NotFoundError for another person's or an unknown passkey.
 */
export async function deletePasskey(tx: PrismaExecutor, personId: string, id: string): Promise<void> {
  const { count } = await tx.passkey.deleteMany({ where: { id, personId } });
  if (count === 0) throw new NotFoundError(`You have no passkey ${id}.`, { parameter: 'id' });
}
