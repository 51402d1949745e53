/**
 * Making an invitation and, with `SMTP_URL`, mailing it: what createInvitation and
 * createAccountInvitation share.
 *
 * @module domain/people/inviteToAccount
 */
import type { components } from '../../../generated/api.d.ts';
import type { Runtime } from '../../deps.ts';
import type { PrismaExecutor } from '../../db/database.ts';
import type { Logger } from '../../logger.ts';
import type { Principal } from '../../security/principal.ts';
import { sendInvitationMail } from './invitationMail.ts';
import { actorName, createInvitationLink, invitationUrl, serializeInvitation } from './invitations.ts';

/** What the invitation needs of the request. */
interface InvitingRequest extends Pick<Runtime, 'db' | 'config' | 'clock'> {
  baseUrl: string;
  principal: Principal | null;
  log: Logger;
}

/**
 * Stores the invitation (in `write`'s transaction) and, after it committed, mails the link when
 * `SMTP_URL` is set and the invitation names an address. A failed e-mail is logged and reported
 * as `meta.emailSent: false`: the link in the answer still works.
 */
export async function inviteToAccount(
  ctx: InvitingRequest,
  accountId: string,
  input: components['schemas']['InvitationCreateRequest']['invitation'],
  write: <T>(work: (tx: PrismaExecutor) => Promise<T>) => Promise<T>,
): Promise<components['schemas']['InvitationDocument']> {
  const now = ctx.clock.now();
  const createdBy = ctx.principal ? actorName(ctx.principal) : null;
  const { row, token, accountName } = await write(async (tx) => {
    const account = await tx.account.findUniqueOrThrow({ where: { id: accountId }, select: { name: true } });
    const made = await createInvitationLink(
      tx,
      { accountId, role: input.role, email: input.email, expiresInHours: input.expiresInHours ?? 168, createdBy },
      now,
    );
    return { ...made, accountName: account.name };
  });
  const url = invitationUrl(ctx.baseUrl, token);
  let emailSent = false;
  if (row.email) {
    try {
      emailSent = await sendInvitationMail(ctx.config, ctx.baseUrl, {
        to: row.email,
        accountName,
        role: row.role,
        url,
        expiresAt: row.expiresAt,
        invitedBy: createdBy,
      });
    } catch (error) {
      ctx.log.warn({ err: error, invitationId: row.id }, 'the invitation e-mail could not be sent');
    }
  }
  return { data: serializeInvitation(row, now, url), meta: { emailSent } };
}
