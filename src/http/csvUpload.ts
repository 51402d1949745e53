/**
 * CSV file uploads (`multipart/form-data`): the one module that receives an uploaded file and
 * reads it as CSV, for the pass batches (`createPassCreationBatch`, `createPassUpdateBatch`) and
 * the CSV recipients of `createWalletMessagingBatch`.
 *
 * Receiving: express-openapi-validator parses multipart bodies with multer (its `fileUploader`
 * option, https://cdimascio.github.io/express-openapi-validator-documentation/usage-file-uploader/).
 * Its default is multer's memory storage, which would hold a whole 10 MB file (and every
 * concurrent one) in memory; {@link uploadOptions} makes it multer's disk storage instead: the
 * file part is streamed (busboy underneath) into a temporary file, with the size limit enforced
 * while streaming (multer `limits.fileSize`: `LIMIT_FILE_SIZE`, which the validator answers with
 * 413). The form fields land in `req.body`, so the validator checks them against the contract like
 * any body (required fields, formats), and the file field as `''` (its `format: binary`). The
 * temporary file is removed when the response ends ({@link removeUploads}), whatever happened.
 *
 * Reading the stored file is src/csv/csvFile.ts's (`readCsv`).
 *
 * @module http/csvUpload
 */
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Request, Response, NextFunction } from 'express';
import { UPLOAD_LIMIT_BYTES, type UploadedFile } from '../csv/csvFile.ts';

/** The file field of each operation that takes an upload (named by the 413 of a file too large). */
export const UPLOAD_FIELDS: Record<string, string> = { createPassCreationBatch: 'csv', createPassUpdateBatch: 'csv', createWalletMessagingBatch: 'recipients' };

/**
 * The `fileUploader` (multer) options of the validator: disk storage in the system's temporary
 * directory, one file of at most {@link UPLOAD_LIMIT_BYTES}, a few small fields.
 */
export const uploadOptions = {
  dest: join(tmpdir(), 'wallet-pass-uploads'),
  limits: { fileSize: UPLOAD_LIMIT_BYTES, files: 1, fields: 10, fieldSize: 4096, parts: 11 },
};

/** The stored files of a request (multer's `req.files`), by field name. */
export function uploadsOf(req: Request): Record<string, UploadedFile> {
  const files = (req as Request & { files?: UploadedFile[] }).files ?? [];
  return Object.fromEntries(files.map((file) => [file.fieldname, file]));
}

/** Middleware: removes a request's stored upload files once its response has ended (or the connection closed). */
export function removeUploads(req: Request, res: Response, next: NextFunction): void {
  res.once('close', () => {
    for (const file of Object.values(uploadsOf(req))) void rm(file.path, { force: true });
  });
  next();
}
