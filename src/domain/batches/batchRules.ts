/**
 * The rules of wallet messaging batches, independent of storage and HTTP (the contract's
 * `BatchStatus`, `WalletMessageTemplate` and `WalletMessagingBatchCreate` describe them to
 * clients; PassEntry's wallet messaging is the source of the shapes and the status flow):
 *
 * - which status each action may start from;
 * - `scheduledAt` after the present (any time ahead: PassEntry's own example schedules years ahead);
 * - rendering `%{variable}` placeholders for one pass;
 * - the final status of a batch from its counts.
 *
 * @module domain/batches/batchRules
 */
import type { components } from '../../../generated/api.d.ts';
import { ConflictError, ValidationError } from '../../errors.ts';

type Schemas = components['schemas'];
export type BatchStatus = Schemas['BatchStatus'];
export type WalletMessagingBatchCreate = Schemas['WalletMessagingBatchCreate'];

/** Longest message, before and after rendering (PassEntry's limit, contract WalletMessageTemplate). */
export const MESSAGE_MAX_LENGTH = 350;

/** A placeholder: `%{name}`, the name shaped like a template field id (contract TemplateFieldId). */
const PLACEHOLDER = /%\{([A-Za-z][A-Za-z0-9_-]{0,63})\}/g;

/** The actions of the API on a batch's status. */
export type BatchAction = 'sendNow' | 'cancel';

/**
 * Statuses each action starts from (the contract's BatchStatus): `sendBatchNow` only from
 * `scheduled`; `cancelBatch` before sending begins.
 */
export const ALLOWED_FROM: Record<BatchAction, readonly BatchStatus[]> = { sendNow: ['scheduled'], cancel: ['validating', 'scheduled'] };

/** The 409 of an action that the batch's status does not allow. */
export function refusedTransition(id: string, status: BatchStatus, action: BatchAction): ConflictError {
  return new ConflictError(
    action === 'sendNow'
      ? `The batch ${id} is ${status}; only a scheduled batch can be sent now.`
      : `The batch ${id} is ${status}; only a validating or scheduled batch can be cancelled.`,
  );
}

/**
 * Checks the create body beyond what the contract can say.
 * @param now The server clock.
 * @returns `scheduledAt` as a Date.
 * @throws ValidationError pointing at `/batch` when not exactly one of `segments` and
 *   `recipients` is given, or at `/batch/scheduledAt` when it is not after `now`.
 */
export function checkNewBatch(batch: WalletMessagingBatchCreate, now: Date): Date {
  if ((batch.segments === undefined) === (batch.recipients === undefined)) {
    throw new ValidationError({ detail: 'Give exactly one of segments and recipients.', source: { pointer: '/batch' } });
  }
  const scheduledAt = new Date(batch.scheduledAt);
  if (scheduledAt.getTime() <= now.getTime()) {
    throw new ValidationError({ detail: `scheduledAt must be in the future; it is ${batch.scheduledAt}.`, source: { pointer: '/batch/scheduledAt' } });
  }
  return scheduledAt;
}

/** The name of a batch created without one: `Wallet message 2026-11-21 09:30 UTC`. */
export function defaultBatchName(now: Date): string {
  return `Wallet message ${now.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The outcome of rendering a message for one pass. */
export type Rendered = { message: string } | { error: string };

/**
 * Renders a message for one pass: each `%{name}` becomes `variables[name]`, else
 * `fields[name]`; text that is not a placeholder stays as it is.
 * @param variables The recipient's variables (listed recipients only).
 * @param fields The pass's field values as text (its `passContent`).
 * @returns The message, or the error for this pass: variables that neither source has, or a
 *   result longer than {@link MESSAGE_MAX_LENGTH}.
 */
export function renderMessage(template: string, variables: Record<string, string>, fields: Record<string, string>): Rendered {
  const missing = new Set<string>();
  const message = template.replace(PLACEHOLDER, (placeholder, name: string) => {
    if (Object.hasOwn(variables, name)) return variables[name]!;
    if (Object.hasOwn(fields, name)) return fields[name]!;
    missing.add(name);
    return placeholder;
  });
  if (missing.size) {
    const names = [...missing];
    return {
      error:
        names.length === 1
          ? `The message needs the variable ${names[0]}, which neither the recipient nor the pass has.`
          : `The message needs the variables ${names.join(', ')}, which neither the recipient nor the pass has.`,
    };
  }
  if (message.length > MESSAGE_MAX_LENGTH) {
    return { error: `The rendered message has ${message.length} characters; at most ${MESSAGE_MAX_LENGTH} are allowed.` };
  }
  return { message };
}

/** How a finished batch ends. */
export interface BatchOutcome {
  status: Extract<BatchStatus, 'successful' | 'completedWithErrors' | 'failed'>;
  statusDetail: string;
}

/**
 * The final status of a batch (contract BatchStatus): `successful` when every recipient got the
 * message, `completedWithErrors` when some did, `failed` when none did. The detail also says how
 * many of the passes that got it are in a wallet (`wallets`), where a holder sees it: a pass in
 * no wallet keeps the message for when it is added, but nobody is told.
 * @param sent Passes that got the message.
 * @param errors Recipients that did not (validation and sending errors).
 * @param wallets Passes among `sent` whose wallet (Apple device or Google object) the message reached.
 */
export function batchOutcome(sent: number, errors: number, wallets = 0): BatchOutcome {
  if (sent === 0) {
    return {
      status: 'failed',
      statusDetail: errors === 0 ? 'No pass matched the batch.' : `None of the ${errors} recipients could be messaged; see errorsCsvUrl.`,
    };
  }
  const reached =
    wallets === 0
      ? ' None of them is in a wallet: the passes keep it for when their holders add them.'
      : wallets === sent
        ? ` ${sent === 1 ? 'It is' : `All ${sent} are`} in a wallet, which showed it.`
        : ` ${wallets} of ${sent} ${wallets === 1 ? 'is' : 'are'} in a wallet, which showed it; the others keep it for when they are added.`;
  if (errors === 0) return { status: 'successful', statusDetail: `All ${sent} recipients got the message.${reached}` };
  return { status: 'completedWithErrors', statusDetail: `${errors} of ${sent + errors} recipients could not be messaged; see errorsCsvUrl.${reached}` };
}
