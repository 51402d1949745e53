/**
 * `npm run admin -- secrets rotate`: re-seals every stored secret with `SECRETS_KEY`, opening the
 * old ones with `SECRETS_KEY_PREVIOUS` (src/domain/secretRotation/secretRotation.ts; the steps
 * are in README, "Rotating SECRETS_KEY"). It opens the database itself, configured as the server
 * is (`DATABASE_URL`, `DATA_DIR`, `SECRETS_KEY`, `SECRETS_KEY_PREVIOUS`): with PostgreSQL while
 * the servers run; on the embedded database, whose one process is the server, with the server
 * stopped (it takes the data directory's lock, src/db/dataDirLock.ts).
 *
 * @module admin/secretsRotation
 */
import { loadConfig } from '../config.ts';
import { openDatabase, pgliteDirOf } from '../db/database.ts';
import { rotateSecrets, type RotationReport } from '../domain/secretRotation/secretRotation.ts';
import { createLogger } from '../logger.ts';
import { lockDataDir } from '../db/dataDirLock.ts';
import { resolveSecretsKey, SecretCipher } from '../security/secrets.ts';

/** How to run a rotation from the command line. */
export interface RotateCommandOptions {
  /** Values re-sealed per transaction. */
  batchSize: number;
  /** Pause between batches, in ms. */
  pauseMs: number;
  /** Receives a progress line after each batch. */
  progress: (line: string) => void;
}

/**
 * Runs a rotation against the database `env` configures.
 * @throws ConfigError (bad or missing keys), DataDirLockedError (the embedded server runs),
 *   SecretDecryptionError (a value sealed with neither key), or the database's error.
 */
export async function rotateSecretsOf(env: NodeJS.ProcessEnv, options: RotateCommandOptions): Promise<RotationReport> {
  const config = loadConfig(env);
  const lock = config.databaseUrl ? undefined : lockDataDir(config.dataDir);
  try {
    const key = await resolveSecretsKey(config, createLogger('silent'));
    const cipher = new SecretCipher(key, config.secretsKeyPrevious ? [config.secretsKeyPrevious] : []);
    const db = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: pgliteDirOf(config.dataDir), poolSize: 2 });
    try {
      return await rotateSecrets(db, cipher, {
        batchSize: options.batchSize,
        pauseMs: options.pauseMs,
        onBatch: ({ column, rotated }) => options.progress(`re-sealed ${rotated} ${column}`),
      });
    } finally {
      await db.close();
    }
  } finally {
    lock?.release();
  }
}
