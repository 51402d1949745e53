/**
 * Reading an uploaded CSV file (stored on disk by the HTTP edge, src/http/csvUpload.ts):
 * {@link readCsv} streams it through a strict UTF-8 decoder (a BOM is dropped; bytes that are not
 * UTF-8 are an error) into csv-parse (RFC 4180 quoting, line breaks inside quotes), yielding one
 * row at a time: memory does not grow with the file. The field delimiter is the one the header
 * row uses — `,` (RFC 4180), `;` (what spreadsheets write where the decimal separator is a comma,
 * such as Excel in Germany or Poland) or a tab — see {@link detectDelimiter}.
 *
 * @module csv/csvFile
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { parse } from 'csv-parse';
import { ValidationError } from '../errors.ts';

/** Largest uploaded file, in bytes: 10 MB (PassEntry's limit for CSV batch files). */
export const UPLOAD_LIMIT_BYTES = 10 * 1024 * 1024;

/** A file as multer stored it. */
export interface UploadedFile {
  /** The form field it came in. */
  fieldname: string;
  originalname: string;
  /** The part's `Content-Type`. */
  mimetype: string;
  /** Bytes. */
  size: number;
  /** Where it is stored until the response ends. */
  path: string;
}

/** Part types a CSV file comes with from browsers, spreadsheets and HTTP clients. */
const CSV_TYPES = new Set(['text/csv', 'text/plain', 'application/csv', 'text/comma-separated-values', 'application/vnd.ms-excel', 'application/octet-stream']);

/**
 * The uploaded file of a form field, checked to be a CSV-like part.
 * @param field The form field (`csv`, `recipients`).
 * @throws ValidationError (pointer `/<field>`) when the field was sent as text rather than a
 *   file, or as a part whose type is not CSV-like (e.g. `image/png`).
 */
export function requireCsvFile(uploads: Record<string, UploadedFile>, field: string): UploadedFile {
  const file = uploads[field];
  if (!file) throw new ValidationError({ detail: `${field} must be a file part (a CSV file), not a text field.`, source: { pointer: `/${field}` } });
  const type = file.mimetype.split(';')[0]!.trim().toLowerCase();
  if (!CSV_TYPES.has(type)) {
    throw new ValidationError({ detail: `${field} must be a CSV file (text/csv); it was sent as ${type}.`, source: { pointer: `/${field}` } });
  }
  return file;
}

/** One data row of a CSV file. */
export interface CsvRow {
  /** Its number as a spreadsheet shows it: the header is row 1, the first data row 2. */
  rowNumber: number;
  /** The non-empty cells by column name (cells are taken as they are, not trimmed). */
  cells: Record<string, string>;
  /** Cells beyond the header's columns (0 for a well-formed row); their values are dropped. */
  extraCells: number;
}

/** Decodes UTF-8 strictly (a BOM dropped, RFC 3629) and refuses NUL characters (a binary file). */
class StrictUtf8 extends Transform {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor() {
    super({ readableObjectMode: false, decodeStrings: true });
  }

  private push_(text: string, callback: TransformCallback) {
    if (text.includes('\u0000')) return callback(new Error('it contains NUL bytes (a binary file?)'));
    callback(null, text);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    let text: string;
    try {
      text = this.decoder.decode(chunk, { stream: true });
    } catch {
      return callback(new Error('it is not UTF-8 text'));
    }
    this.push_(text, callback);
  }

  override _flush(callback: TransformCallback) {
    let text: string;
    try {
      text = this.decoder.decode();
    } catch {
      return callback(new Error('it is not UTF-8 text'));
    }
    this.push_(text, callback);
  }
}

/** Field delimiters a CSV file may use, in the order that wins a tie. */
export const CSV_DELIMITERS = [',', ';', '\t'] as const;

/** Bytes of the file's start read to find its header row. */
const HEADER_SAMPLE_BYTES = 64 * 1024;

/**
 * The field delimiter of a CSV file: of `,`, `;` and tab, the one that occurs most often in its
 * header row outside double quotes (`,` when none does, or on a tie). Header names are ids
 * (`ext_id`, `passfield_member`), which hold none of the three, so the header decides reliably
 * where data rows (a `;` inside a comma-separated value) would not.
 * @param path The stored file.
 */
export async function detectDelimiter(path: string): Promise<(typeof CSV_DELIMITERS)[number]> {
  const handle = await open(path, 'r');
  let sample: string;
  try {
    const buffer = Buffer.alloc(HEADER_SAMPLE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, HEADER_SAMPLE_BYTES, 0);
    sample = new TextDecoder('utf-8').decode(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
  const counts = new Map<string, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of sample) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === '\n' || char === '\r')) break;
    else if (!quoted && counts.has(char)) counts.set(char, counts.get(char)! + 1);
  }
  return CSV_DELIMITERS.reduce((best, d) => (counts.get(d)! > counts.get(best)! ? d : best), CSV_DELIMITERS[0]);
}

/**
 * Reads a stored CSV file row by row, its delimiter found by {@link detectDelimiter}.
 * @param field The form field, named by errors.
 * @param checkHeader Called with the header's column names (trimmed) before any row is read;
 *   throws what it refuses (a ValidationError naming `field`).
 * @returns The data rows, in file order (empty lines skipped).
 * @throws ValidationError (pointer `/<field>`) when the file is not UTF-8, contains NUL bytes,
 *   has broken quoting, has no header, or a header with an empty or repeated column name.
 */
export async function* readCsv(file: UploadedFile, field: string, checkHeader: (columns: string[]) => void): AsyncGenerator<CsvRow> {
  const refuse = (why: string) => new ValidationError({ detail: `${field} is not a readable CSV file: ${why}.`, source: { pointer: `/${field}` } });
  const delimiter = await detectDelimiter(file.path);
  const parser = parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, info: true, max_record_size: UPLOAD_LIMIT_BYTES });
  pipeline(createReadStream(file.path), new StrictUtf8(), parser, () => {});
  let columns: string[] | undefined;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { records: number } }>) {
      if (!columns) {
        columns = record.map((name) => name.trim());
        const empty = columns.indexOf('');
        if (empty >= 0) throw refuse(`column ${empty + 1} of the header has no name`);
        const repeated = columns.find((name, i) => columns!.indexOf(name) !== i);
        if (repeated) throw refuse(`the header names the column ${repeated} twice`);
        checkHeader(columns);
        continue;
      }
      const cells: Record<string, string> = {};
      columns.forEach((name, i) => {
        const value = record[i];
        if (value !== undefined && value !== '') cells[name] = value;
      });
      yield { rowNumber: info.records, cells, extraCells: Math.max(0, record.length - columns.length) };
    }
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    throw refuse(String((error as Error)?.message ?? error).replace(/\.$/, ''));
  } finally {
    parser.destroy();
  }
  if (!columns) throw refuse('it is empty (no header row)');
}
