/**
 * CSV import: issue a membership list as passes in one upload, with a progress bar, against a
 * running server (PassEntry's "CSV pass creation", `POST /api/v1/passes/batch`).
 *
 *   BASE_URL=http://127.0.0.1:3000 API_TOKEN=wps_… npm run example:csv [-- members.csv]
 *
 * 1. Use the pass template `TEMPLATE_ID`, else create a small loyalty template (fields `member`
 *    and `points`) and wait until it is processed.
 * 2. Take the CSV file named on the command line, else write one of `ROWS` members (default
 *    1,000) to a temporary file: `ext_id`, `group_tags`, `passfield_member`, `passfield_points`,
 *    with a name holding a comma and a quote on every 100th row, and an extId given twice on
 *    purpose (both rows are refused) so that the errors CSV has something to show.
 * 3. Upload it with the typed client's `createPassesFromCsv` (the file is streamed from disk with
 *    `fs.openAsBlob`), drawing the batch's `progress` (`processed` of `total` rows) as a bar in the
 *    terminal (cli-progress) until the batch has finished.
 * 4. Print the outcome — status, rows per second, the first lines of the results CSV (created
 *    pass ids, extIds, download URLs) and of the errors CSV (row, column, reason) — and exit 1
 *    when the batch did not create the passes of the valid rows.
 *
 * @module examples/csvImport
 */
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import cliProgress from 'cli-progress';
import { stringify } from 'csv-stringify/sync';
// Inside this repository; another project imports the same from the package:
//   import { WalletPassApiError, type BatchResource } from 'wallet-pass-service/client';
import { WalletPassApiError, type BatchResource } from '../src/client/index.ts';
import { brandImage, exampleEnvironment } from './exampleEnvironment.ts';

const { baseUrl, token, client } = exampleEnvironment();

/** The template to issue from: `TEMPLATE_ID`, or a new one, processed. */
async function templateId(): Promise<string> {
  if (process.env.TEMPLATE_ID) return process.env.TEMPLATE_ID;
  const { data, error, response } = await client.POST('/api/v1/pass-templates', {
    body: {
      passTemplate: {
        name: 'Members imported from CSV',
        templateType: 'loyalty',
        centralTitle: 'Coffee Club',
        images: { logo: await brandImage(480, 150, '#F5D76E'), icon: await brandImage(87, 87, '#1A2B3C') },
        fields: {
          header: { one: { id: 'points', label: 'Points', defaultValue: '0' } },
          central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } },
        },
        barcode: { enabled: true, type: 'qr', source: 'uuid' },
      },
    },
  });
  if (!data) throw new WalletPassApiError(response.status, (error as { errors?: [] } | undefined)?.errors ?? []);
  const template = await client.waitForTemplate(data.id, { timeoutMs: 60_000 });
  if ((template.attributes as { processingStatus?: string }).processingStatus === 'failed') throw new Error('The template failed processing.');
  return template.id;
}

/** Writes a members CSV of `rows` data rows (one of them a duplicate extId) and returns its path. */
async function writeMembersCsv(dir: string, rows: number): Promise<string> {
  const run = Date.now().toString(36);
  const records = [['ext_id', 'group_tags', 'passfield_member', 'passfield_points']];
  for (let i = 1; i <= rows; i++) {
    const name = i % 100 === 0 ? `Member "${i}", honorary` : `Member ${i}`;
    records.push([`csv-${run}-${i}`, i % 2 ? 'gold,csv' : 'csv', name, String(i % 500)]);
  }
  // The last row repeats the first row's extId: both rows with it are refused (errors CSV).
  records.push([`csv-${run}-1`, 'csv', 'Duplicate', '0']);
  const path = join(dir, 'members.csv');
  await writeFile(path, stringify(records, { record_delimiter: '\r\n' }));
  return path;
}

/** The first `lines` lines of a CSV the API serves (results or errors), or a note when there is none. */
async function head(url: string | null | undefined, lines: number): Promise<string> {
  if (!url) return '  (none)';
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) return `  (HTTP ${response.status})`;
  const text = await response.text();
  return text
    .split(/\r?\n/)
    .filter(Boolean)
    .slice(0, lines)
    .map((line) => `  ${line}`)
    .join('\n');
}

async function main(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'wps-csv-import-'));
  try {
    const passTemplate = await templateId();
    const rows = Number(process.env.ROWS ?? 1000);
    const file = process.argv[2] ?? (await writeMembersCsv(dir, rows));
    console.log(`Uploading ${file} to ${baseUrl} (template ${passTemplate})`);

    const bar = new cliProgress.SingleBar(
      { format: ' {bar} {percentage}% | {value}/{total} rows | {status}', hideCursor: true, noTTYOutput: true, notTTYSchedule: 1000 },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    const onProgress = (batch: BatchResource) => {
      const progress = batch.attributes.progress;
      if (!progress) return;
      if (!started) {
        bar.start(progress.total, progress.processed, { status: batch.attributes.status });
        started = true;
      }
      bar.update(progress.processed, { status: batch.attributes.status });
    };
    const began = performance.now();
    const batch = await client.createPassesFromCsv(
      { passTemplate, csv: await openAsBlob(file), name: 'CSV import example', fileName: 'members.csv' },
      { onProgress },
    );
    const seconds = (performance.now() - began) / 1000;
    if (started) bar.stop();

    const { status, progress, errorsCsvUrl, resultsCsvUrl } = batch.attributes;
    console.log(
      `Batch ${batch.id}: ${status}, ${progress?.processed ?? 0}/${progress?.total ?? 0} rows in ${seconds.toFixed(1)} s (${((progress?.total ?? 0) / seconds).toFixed(0)} rows/s)`,
    );
    console.log(`Results CSV (${resultsCsvUrl ?? 'none'}):\n${await head(resultsCsvUrl, 4)}`);
    console.log(`Errors CSV (${errorsCsvUrl ?? 'none'}):\n${await head(errorsCsvUrl, 4)}`);
    // The generated file has one bad row on purpose; a file of one's own may have none.
    return status === 'successful' || status === 'completedWithErrors' ? 0 : 1;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof WalletPassApiError) console.error(`The API refused: HTTP ${error.status}\n${JSON.stringify({ errors: error.errors }, null, 2)}`);
    else console.error(error);
    process.exit(1);
  },
);
