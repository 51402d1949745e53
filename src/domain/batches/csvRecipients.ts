/**
 * Wallet messaging recipients from a CSV file (the contract's `WalletMessagingBatchCsvRequest`,
 * PassEntry's CSV recipients): a `pass_id` column and one column per message variable, read with
 * the upload module (src/http/csvUpload.ts) and stored in chunks as the batch's listed recipients,
 * so that memory does not grow with the file.
 *
 * @module domain/batches/csvRecipients
 */
import type { PrismaExecutor } from '../../db/database.ts';
import { ValidationError } from '../../errors.ts';
import { readCsv, type UploadedFile } from '../../csv/csvFile.ts';
import { insertRecipients, type NewRecipient } from './batchStore.ts';

/** A variable name (the contract's TemplateFieldId). */
const VARIABLE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** A pass UUID or extId (the contract's PassIdOrExtId). */
const PASS_REF = /^[A-Za-z0-9._~:@!$&'()*+,;=-]{1,64}$/;
/** Limits of one recipient's variables (the contract's MessageVariables). */
const MAX_VARIABLES = 50;
const MAX_VALUE = 350;
const CHUNK = 1000;

/**
 * Reads the recipients file and stores its rows as the batch's recipients, in file order.
 * @returns How many recipients were stored.
 * @throws ValidationError (pointer `/recipients`) for a file that cannot be read, a header without
 *   `pass_id` or with a column that is not a variable name, a row without a valid `pass_id` or over
 *   the variable limits, or no data row.
 */
export async function storeCsvRecipients(tx: PrismaExecutor, batch: { id: string; accountId: string }, file: UploadedFile): Promise<number> {
  const refuse = (detail: string) => new ValidationError({ detail, source: { pointer: '/recipients' } });
  const checkHeader = (columns: string[]) => {
    if (!columns.includes('pass_id')) throw refuse('The recipients file needs a pass_id column (a pass UUID or extId per row).');
    const bad = columns.find((c) => c !== 'pass_id' && !VARIABLE.test(c));
    if (bad) throw refuse(`The column ${bad.slice(0, 80)} is not a variable name (a letter, then letters, digits, _ or -).`);
    if (columns.length - 1 > MAX_VARIABLES)
      throw refuse(`The recipients file has ${columns.length - 1} variable columns; at most ${MAX_VARIABLES} are allowed.`);
  };
  let position = 0;
  let chunk: NewRecipient[] = [];
  for await (const { rowNumber, cells } of readCsv(file, 'recipients', checkHeader)) {
    const { pass_id: passRef, ...variables } = cells;
    if (passRef === undefined || !PASS_REF.test(passRef)) throw refuse(`Row ${rowNumber}: pass_id must be a pass UUID or extId (1–64 characters).`);
    const long = Object.entries(variables).find(([, value]) => value.length > MAX_VALUE);
    if (long) throw refuse(`Row ${rowNumber}: the variable ${long[0]} has ${long[1].length} characters; at most ${MAX_VALUE} are allowed.`);
    chunk.push({ passRef, variables });
    if (chunk.length >= CHUNK) {
      await insertRecipients(tx, batch, chunk, position);
      position += chunk.length;
      chunk = [];
    }
  }
  await insertRecipients(tx, batch, chunk, position);
  position += chunk.length;
  if (position === 0) throw refuse('The recipients file has a header but no data row.');
  return position;
}
