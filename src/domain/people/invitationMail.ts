/**
 * The invitation e-mail, sent through nodemailer (https://nodemailer.com/smtp/) when
 * `SMTP_URL` is configured; without it the service sends nothing and the link is only in the
 * answer of createInvitation. Plain text, in English; the link is the only secret in it.
 *
 * @module domain/people/invitationMail
 */
import nodemailer from 'nodemailer';
import type { Config } from '../../config.ts';

/** Sends the invitation link to `to`. @returns Whether it was sent (false without `SMTP_URL`). @throws the transport's error. */
export async function sendInvitationMail(
  config: Pick<Config, 'smtpUrl' | 'smtpFrom'>,
  baseUrl: string,
  invitation: { to: string; accountName: string; role: string; url: string; expiresAt: Date; invitedBy: string | null },
): Promise<boolean> {
  if (!config.smtpUrl) return false;
  const transport = nodemailer.createTransport(config.smtpUrl);
  try {
    await transport.sendMail({
      from: config.smtpFrom ?? `Wallet Pass Service <no-reply@${new URL(baseUrl).hostname}>`,
      to: invitation.to,
      subject: `You are invited to ${invitation.accountName}`,
      text: [
        `${invitation.invitedBy ?? 'Someone'} invites you to work in ${invitation.accountName} as ${invitation.role}.`,
        '',
        `Open this link to join (it works once, until ${invitation.expiresAt.toUTCString()}):`,
        invitation.url,
      ].join('\n'),
    });
    return true;
  } finally {
    transport.close();
  }
}
