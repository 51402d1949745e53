/**
 * The backup file of the embedded database (`npm run admin -- backup` / `restore`): one JSON
 * document holding PGlite's copy of the data directory (src/db/embeddedBackup.ts, from the
 * running service's `getDatabaseBackup`) and the secret files of `DATA_DIR` that the database
 * cannot be used without: `secrets-key` (the key sealing the database's secrets, when
 * `SECRETS_KEY` is not set) and `admin-token`. Written with mode 0600: it is as secret as the
 * data directory.
 *
 * Shape: `{ "format": "wallet-pass-service-backup", "version": 1, "createdAt": ISO 8601,
 * "database": "pglite", "files": { "<name>": "<content>" }, "pglite": "<base64 of the
 * gzip-compressed tar>" }`.
 *
 * @module admin/backupFile
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { lockDataDir } from '../db/dataDirLock.ts';
import { loadEmbeddedDatabase } from '../db/embeddedBackup.ts';
import { pgliteDirOf } from '../db/database.ts';
import { ADMIN_TOKEN_FILE } from '../security/adminToken.ts';
import { SECRETS_KEY_FILE } from '../security/secrets.ts';

const FORMAT = 'wallet-pass-service-backup';

/** The secret files of a data directory that a backup carries, when they exist. */
export const DATA_DIR_SECRET_FILES = [SECRETS_KEY_FILE, ADMIN_TOKEN_FILE] as const;

/** A backup file, as stored. */
interface BackupDocument {
  format: typeof FORMAT;
  version: 1;
  createdAt: string;
  database: 'pglite';
  files: Record<string, string>;
  pglite: string;
}

/** A backup file or a data directory that cannot be used as asked; the message says why. */
export class BackupFileError extends Error {
  override name = 'BackupFileError';
}

/**
 * Writes a backup file (mode 0600; refuses to overwrite an existing file).
 * @param archive The database copy (`getDatabaseBackup`'s body).
 * @param dataDir The data directory whose secret files it carries.
 * @returns The names of the secret files it carries.
 * @throws The file system's error (EEXIST when `path` exists).
 */
export async function writeBackupFile(path: string, archive: Uint8Array, dataDir: string, now: Date): Promise<string[]> {
  const files: Record<string, string> = {};
  for (const name of DATA_DIR_SECRET_FILES) {
    try {
      files[name] = await readFile(join(dataDir, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const document: BackupDocument = {
    format: FORMAT,
    version: 1,
    createdAt: now.toISOString(),
    database: 'pglite',
    files,
    pglite: Buffer.from(archive).toString('base64'),
  };
  await writeFile(path, JSON.stringify(document), { mode: 0o600, flag: 'wx' });
  return Object.keys(files);
}

/** Reads and checks a backup file. @throws BackupFileError when it is not one. */
async function readBackupFile(path: string): Promise<BackupDocument> {
  let document: Partial<BackupDocument>;
  try {
    document = JSON.parse(await readFile(path, 'utf8')) as Partial<BackupDocument>;
  } catch (error) {
    throw new BackupFileError(`${path} is not a backup file: ${(error as Error).message}`);
  }
  if (document.format !== FORMAT || document.version !== 1 || typeof document.pglite !== 'string' || typeof document.files !== 'object') {
    throw new BackupFileError(`${path} is not a backup file of this service (format ${FORMAT}, version 1).`);
  }
  return document as BackupDocument;
}

/**
 * Restores a backup file into `dataDir`, which must be empty or missing: the database into
 * `<dataDir>/pglite`, the secret files beside it (mode 0600). Holds the data directory's lock
 * meanwhile (src/db/dataDirLock.ts).
 * @returns What was restored: the backup's time and the secret files written.
 * @throws BackupFileError when the file is not a backup or `dataDir` is not empty; PGlite's error
 *   when the database copy cannot be opened.
 */
export async function restoreBackupFile(path: string, dataDir: string): Promise<{ createdAt: string; files: string[] }> {
  const document = await readBackupFile(path);
  await mkdir(dataDir, { recursive: true });
  const present = await readdir(dataDir);
  if (present.length > 0) throw new BackupFileError(`${dataDir} is not empty (${present.slice(0, 3).join(', ')}…): restore into a new, empty data directory.`);
  const lock = lockDataDir(dataDir);
  try {
    for (const [name, content] of Object.entries(document.files)) {
      if (!(DATA_DIR_SECRET_FILES as readonly string[]).includes(name)) throw new BackupFileError(`${path} carries an unknown file ${name}.`);
      await writeFile(join(dataDir, name), content, { mode: 0o600, flag: 'wx' });
    }
    await loadEmbeddedDatabase(pgliteDirOf(dataDir), Buffer.from(document.pglite, 'base64'));
  } finally {
    lock.release();
  }
  return { createdAt: document.createdAt, files: Object.keys(document.files) };
}
