/**
 * Rotation of `SECRETS_KEY`: re-seals every stored secret (reader configuration keys, Apple and
 * Google keys, webhook signing secrets, the passes' Apple authentication tokens:
 * {@link SEALED_COLUMNS}) with the current key, opening it with the key that sealed it (the
 * cipher holds `SECRETS_KEY_PREVIOUS` for that).
 *
 * In batches, each one transaction, so that a running service is never blocked for long. Resumable
 * without bookkeeping: a value sealed with the current key starts with its key id
 * (src/security/secrets.ts), so a rotation run again after an interruption (a crash, `kill -9`)
 * finds exactly the values still left and goes on from there; values written by the servers in
 * the meantime are sealed with the current key already. The rotation is complete when no value is
 * left ({@link RotationReport.remaining} is 0): only then may `SECRETS_KEY_PREVIOUS` be removed
 * (README, "Rotating SECRETS_KEY").
 *
 * @module domain/secretRotation/secretRotation
 */
import type { Database } from '../../db/database.ts';
import type { SecretCipher } from '../../security/secrets.ts';
import { countPendingSealedValues, FIRST_KEY, pendingSealedValues, replaceSealedValue, SEALED_COLUMNS, type SealedColumn } from './sealedColumnStore.ts';

/** How a rotation runs. */
export interface RotationOptions {
  /** Values re-sealed per transaction (≥ 1). */
  batchSize: number;
  /** Pause between batches, in ms (0: none), to spare a busy database. */
  pauseMs?: number;
  /** Called after each committed batch. */
  onBatch?: (progress: { column: string; rotated: number }) => void;
}

/** What a rotation did. */
export interface RotationReport {
  /** Values re-sealed, per column name ({@link SealedColumn.name}). */
  rotated: Record<string, number>;
  /** Values still not sealed with the current key when the run ended (0: the rotation is complete). */
  remaining: number;
}

/**
 * Re-seals every stored secret that is not sealed with the cipher's current key.
 * @throws SecretDecryptionError naming the value (its context) when a value was sealed with a key
 *   the cipher does not hold; the batches before it stay committed, so a run with the right
 *   `SECRETS_KEY_PREVIOUS` goes on from there.
 */
export async function rotateSecrets(db: Database, cipher: SecretCipher, options: RotationOptions): Promise<RotationReport> {
  const rotated: Record<string, number> = {};
  for (const column of SEALED_COLUMNS) rotated[column.name] = await rotateColumn(db, cipher, column, options);
  let remaining = 0;
  for (const column of SEALED_COLUMNS) remaining += await countPendingSealedValues(db, column, cipher.sealedPrefix);
  return { rotated, remaining };
}

/** Walks one column in key order, a batch per transaction; returns how many values it re-sealed. */
async function rotateColumn(db: Database, cipher: SecretCipher, column: SealedColumn, options: RotationOptions): Promise<number> {
  let afterKey = FIRST_KEY;
  let rotated = 0;
  for (;;) {
    const batch = await db.writeSql(async (tx) => {
      const rows = await pendingSealedValues(tx, column, cipher.sealedPrefix, afterKey, options.batchSize);
      let replaced = 0;
      for (const row of rows) {
        const resealed = cipher.encrypt(cipher.decrypt(row.sealed, column.context(row.key)), column.context(row.key));
        if (await replaceSealedValue(tx, column, row.key, row.sealed, resealed)) replaced++;
      }
      return { lastKey: rows.at(-1)?.key, size: rows.length, replaced };
    });
    rotated += batch.replaced;
    if (batch.size > 0) options.onBatch?.({ column: column.name, rotated });
    if (batch.size < options.batchSize || !batch.lastKey) return rotated;
    afterKey = batch.lastKey;
    if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
  }
}
