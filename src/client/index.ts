/**
 * Typed client of the Wallet Pass Service API, for consumers and our own examples.
 *
 * Built on openapi-fetch with the `paths` type generated from the contract, so every path,
 * parameter, body and response is checked by the compiler. Calls resolve to
 * `{ data, error, response }`: on a 4xx/5xx `error` is the JSON:API error document
 * (`{ errors: [{ status, code, title, detail, source? }] }`), never a thrown string. The two
 * helpers users otherwise write by hand throw {@link WalletPassApiError} (carrying that typed
 * document) or {@link WalletPassTimeoutError}.
 *
 * @example
 *   const client = createWalletPassClient({ baseUrl: 'http://127.0.0.1:3000', token: 'wps_…' });
 *   const created = await client.POST('/api/v1/pass-templates', { body: { passTemplate } });
 *   const template = await client.waitForTemplate(created.data!.id);
 *   for await (const pass of client.paginate('/api/v1/passes', { query: { status: 'issued' } })) { … }
 *   const batch = await client.createPassesFromCsv({ passTemplate: template.id, csv: await openAsBlob('members.csv') },
 *     { onProgress: (b) => console.log(b.attributes.progress) });
 *
 * @module client
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../../generated/api.d.ts';

export type { components, paths };

/** The JSON:API error document every failing response carries. */
export type ErrorDocument = components['schemas']['ErrorDocument'];

/** A request failed; `errors` are the API's JSON:API error objects. */
export class WalletPassApiError extends Error {
  override name = 'WalletPassApiError';
  constructor(
    readonly status: number,
    readonly errors: ErrorDocument['errors'],
  ) {
    super(errors.map((e) => `${e.code}: ${e.detail}`).join('; ') || `HTTP ${status}`);
  }
}

/** {@link WalletPassClient.waitForTemplate} gave up. */
export class WalletPassTimeoutError extends Error {
  override name = 'WalletPassTimeoutError';
}

/** Options of {@link createWalletPassClient}. */
export interface WalletPassClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:3000` (no trailing `/api/v1`). */
  baseUrl: string;
  /** The account's API key (`wps_…`), sent as `Authorization: Bearer`. */
  token: string;
  /** A fetch implementation (default: the global one). */
  fetch?: typeof globalThis.fetch;
}

type JsonOk<Op> = Op extends { responses: { 200: { content: { 'application/json': infer Body } } } } ? Body : never;

/** The `/api/v1` paths whose GET answers a paginated list (`{ data: [...], meta, links }`). */
export type ListPath = {
  [P in keyof paths]: P extends `/api/v1/${string}`
    ? paths[P] extends { get: infer Op }
      ? JsonOk<Op> extends { data: unknown[]; meta: { totalPages: number } }
        ? P
        : never
      : never
    : never;
}[keyof paths];

/** One record of a list path. */
export type ListItem<P extends ListPath> = paths[P] extends { get: infer Op } ? (JsonOk<Op> extends { data: (infer T)[] } ? T : never) : never;

/** The parameters of a list path, without `page` (the iterator moves it). */
export type ListParams<P extends ListPath> = paths[P] extends { get: { parameters: infer Params } }
  ? { query?: Omit<NonNullable<Params extends { query?: infer Q } ? Q : never>, 'page'>; path?: Params extends { path: infer Path } ? Path : never }
  : never;

/** A pass template resource as `getPassTemplate` returns it. */
export type PassTemplateResource = components['schemas']['PassTemplateDocument']['data'];

/** Options of {@link WalletPassClient.waitForTemplate}. */
export interface WaitOptions {
  /** Give up after this many milliseconds (default 30 000). */
  timeoutMs?: number;
  /** First wait between polls in milliseconds (default 200); it grows ×1.5 up to 5 s. */
  intervalMs?: number;
}

/** A batch resource as `getBatch` returns it. */
export type BatchResource = components['schemas']['BatchDocument']['data'];

/** The statuses after which a batch no longer changes (the contract's `BatchStatus`). */
export const FINISHED_BATCH_STATUSES: readonly BatchResource['attributes']['status'][] = ['successful', 'completedWithErrors', 'failed', 'cancelled'];

/** Options of {@link WalletPassClient.waitForBatch} and the CSV upload helpers. */
export interface BatchWaitOptions extends WaitOptions {
  /**
   * Called with the batch after every poll whose `progress` or status changed (and once with the
   * accepted batch), e.g. to draw a progress bar from `attributes.progress` (`{ total, processed, pending }`).
   */
  onProgress?: (batch: BatchResource) => void;
}

/**
 * A CSV file to upload: its text, its bytes, or a Blob (in Node.js `await fs.openAsBlob(path)`,
 * which streams the file from disk instead of reading it into memory).
 */
export type CsvFile = string | Uint8Array | Blob;

/** The form of {@link WalletPassClient.createPassesFromCsv} (`createPassCreationBatch`). */
export interface PassCreationCsvForm {
  /** The id of a processed pass template of the account. */
  passTemplate: string;
  csv: CsvFile;
  /** The batch's name (default: the service's). */
  name?: string;
  /** The file name sent with the file (default `passes.csv`). */
  fileName?: string;
}

/** The form of {@link WalletPassClient.updatePassesFromCsv} (`createPassUpdateBatch`). */
export interface PassUpdateCsvForm {
  csv: CsvFile;
  /** When the rows are applied: an ISO 8601 date-time (`sendBatchNow` starts it earlier). */
  scheduledAt: string;
  name?: string;
  fileName?: string;
}

/** The client: openapi-fetch's typed methods plus the helpers. */
export type WalletPassClient = Client<paths> & {
  /**
   * Polls a pass template (its `meta.links.self`, `GET /api/v1/pass-templates/{id}`) with back-off
   * until it is no longer `processing` (PassEntry API reference: pass template processing rule 1).
   * @returns The template: processed (no `processingStatus`) or `processingStatus: 'failed'`.
   * @throws WalletPassApiError when the API refuses (e.g. 404), WalletPassTimeoutError after `timeoutMs`.
   */
  waitForTemplate(id: string, options?: WaitOptions): Promise<PassTemplateResource>;
  /**
   * Iterates every record of a paginated list, fetching page after page (`perPage` defaults to
   * 100, the largest page) until the last.
   * @throws WalletPassApiError when a page request fails.
   */
  paginate<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<ListItem<P>, void, undefined>;
  /**
   * Polls a batch (`GET /api/v1/batches/{id}`) with back-off until its status is one of
   * {@link FINISHED_BATCH_STATUSES}, reporting each change of its `progress` or status to
   * `onProgress`. Default `timeoutMs` 30 minutes; a `passUpdate` batch only starts at its
   * `scheduledAt`, so waiting for one scheduled later needs a longer timeout.
   * @returns The finished batch (`attributes.errorsCsvUrl` / `resultsCsvUrl` name its CSVs).
   * @throws WalletPassApiError when the API refuses, WalletPassTimeoutError after `timeoutMs`.
   */
  waitForBatch(id: string, options?: BatchWaitOptions): Promise<BatchResource>;
  /**
   * Uploads a CSV file of passes to create (`POST /api/v1/passes/batch`, multipart/form-data;
   * columns as the contract's `PassBatchCsvFile`) and waits until the batch has finished
   * ({@link waitForBatch}).
   * @throws WalletPassApiError when the upload is refused (e.g. 400 naming `csv` for an
   *   unreadable file, 413 over 10 MB) or a poll fails; WalletPassTimeoutError after `timeoutMs`.
   */
  createPassesFromCsv(form: PassCreationCsvForm, options?: BatchWaitOptions): Promise<BatchResource>;
  /**
   * Uploads a CSV file of changes to passes (`POST /api/v1/passes/batch/update`; `pass_id`,
   * `pass_action` and the creation columns) and waits until the batch, which starts at
   * `scheduledAt`, has finished ({@link waitForBatch}).
   * @throws As {@link createPassesFromCsv}.
   */
  updatePassesFromCsv(form: PassUpdateCsvForm, options?: BatchWaitOptions): Promise<BatchResource>;
};

/** A form's file as a Blob (text/csv), whatever form it was given in. */
function csvBlob(csv: CsvFile): Blob {
  if (csv instanceof Blob) return csv;
  return new Blob([typeof csv === 'string' ? csv : new Uint8Array(csv)], { type: 'text/csv' });
}

/** Builds a multipart form: the text fields that are set, then the file as `csv`. */
function csvFormData(fields: Record<string, string | undefined>, csv: CsvFile, fileName = 'passes.csv'): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  form.append('csv', csvBlob(csv), fileName);
  return form;
}

function apiError(response: Response, error: unknown): WalletPassApiError {
  const document = error as Partial<ErrorDocument> | undefined;
  return new WalletPassApiError(response.status, Array.isArray(document?.errors) ? document.errors : []);
}

/**
 * Creates a client.
 * @param options Base URL, API key and optionally a fetch implementation.
 */
export function createWalletPassClient(options: WalletPassClientOptions): WalletPassClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  async function waitForTemplate(id: string, { timeoutMs = 30_000, intervalMs = 200 }: WaitOptions = {}) {
    const deadline = Date.now() + timeoutMs;
    let wait = intervalMs;
    for (;;) {
      const { data, error, response } = await api.GET('/api/v1/pass-templates/{id}', { params: { path: { id } } });
      if (!data) throw apiError(response, error);
      const status = (data.data.attributes as { processingStatus?: string }).processingStatus;
      if (status !== 'processing') return data.data;
      if (Date.now() + wait > deadline) {
        throw new WalletPassTimeoutError(`Pass template ${id} was still processing after ${timeoutMs} ms.`);
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 1.5, 5000);
    }
  }

  async function* paginate<P extends ListPath>(path: P, params?: ListParams<P>): AsyncGenerator<ListItem<P>, void, undefined> {
    const get = api.GET as unknown as (
      path: string,
      init: { params: { query: Record<string, unknown>; path?: unknown } },
    ) => Promise<{ data?: { data: ListItem<P>[]; meta: { totalPages: number } }; error?: unknown; response: Response }>;
    for (let page = 1; ; page++) {
      const query = { perPage: 100, ...(params?.query as Record<string, unknown> | undefined), page };
      const { data, error, response } = await get(path, { params: { query, ...(params?.path ? { path: params.path } : {}) } });
      if (!data) throw apiError(response, error);
      yield* data.data;
      if (page >= data.meta.totalPages) return;
    }
  }

  async function waitForBatch(id: string, { timeoutMs = 30 * 60_000, intervalMs = 200, onProgress }: BatchWaitOptions = {}) {
    const deadline = Date.now() + timeoutMs;
    let wait = intervalMs;
    let last = '';
    for (;;) {
      const { data, error, response } = await api.GET('/api/v1/batches/{id}', { params: { path: { id } } });
      if (!data) throw apiError(response, error);
      const batch = data.data;
      const seen = JSON.stringify([batch.attributes.status, batch.attributes.progress]);
      if (seen !== last) {
        last = seen;
        onProgress?.(batch);
      }
      if (FINISHED_BATCH_STATUSES.includes(batch.attributes.status)) return batch;
      if (Date.now() + wait > deadline) throw new WalletPassTimeoutError(`Batch ${id} had not finished after ${timeoutMs} ms.`);
      await new Promise((resolve) => setTimeout(resolve, wait));
      wait = Math.min(wait * 1.5, 2000);
    }
  }

  /** Uploads a CSV pass batch's form, reports the accepted batch, then waits for it to finish. */
  async function submitCsvBatch(path: '/api/v1/passes/batch' | '/api/v1/passes/batch/update', body: FormData, options: BatchWaitOptions) {
    const { data, error, response } = await api.POST(path, { body: body as never, bodySerializer: (formData) => formData as unknown as FormData });
    if (!data) throw apiError(response, error);
    options.onProgress?.(data.data);
    return waitForBatch(data.data.id, options);
  }

  const createPassesFromCsv = (form: PassCreationCsvForm, options: BatchWaitOptions = {}) =>
    submitCsvBatch('/api/v1/passes/batch', csvFormData({ passTemplate: form.passTemplate, name: form.name }, form.csv, form.fileName), options);

  const updatePassesFromCsv = (form: PassUpdateCsvForm, options: BatchWaitOptions = {}) =>
    submitCsvBatch('/api/v1/passes/batch/update', csvFormData({ scheduledAt: form.scheduledAt, name: form.name }, form.csv, form.fileName), options);

  return Object.assign(api, { waitForTemplate, paginate, waitForBatch, createPassesFromCsv, updatePassesFromCsv });
}
