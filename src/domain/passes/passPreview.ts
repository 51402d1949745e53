/**
 * What the preview of one pass is drawn from: its template's newest processed design
 * with the pass's field values, loyalty points, barcode (encoded as its wallets encode it) and
 * latest message, and a tag naming the pass version. Rendering is src/wallet/preview/.
 *
 * @module domain/passes/passPreview
 */
import type { PrismaExecutor, SqlExecutor } from '../../db/database.ts';
import { templatePreviewSource, type PreviewSource } from '../passTemplates/templatePreview.ts';
import { barcodeCaption, identifierValue, type BarcodeSettings } from './passRules.ts';
import { requirePass } from './passStore.ts';
import { passContentOf } from './serializePass.ts';

/**
 * The preview source of a pass of the account, by UUID or extId.
 * @throws NotFoundError (parameter `id`) for an unknown pass; ValidationError for `lang`.
 */
export async function passPreviewSource(
  prisma: PrismaExecutor & SqlExecutor,
  accountId: string,
  idOrExtId: string,
  options: { lang?: string; acceptLanguage?: string },
): Promise<PreviewSource> {
  const pass = await requirePass(prisma, accountId, idOrExtId);
  const barcode = pass.barcode as BarcodeSettings | null;
  const message = barcode?.enabled ? identifierValue(barcode.source, pass, barcode.value) : null;
  const altText = barcode && message !== null ? barcodeCaption(barcode, message) : undefined;
  const template = await prisma.passTemplate.findUniqueOrThrow({ where: { id: pass.templateId }, select: { notificationHeader: true } });
  return templatePreviewSource(prisma, accountId, pass.templateId, {
    ...options,
    pass: {
      tag: `${pass.id}/${pass.updatedAt.getTime()}`,
      values: passContentOf(pass),
      barcode: barcode && message !== null ? { format: barcode.type, message, ...(altText ? { altText } : {}) } : null,
      points: pass.balance,
      latestMessage: pass.latestMessage ? { label: template.notificationHeader ?? 'Message', value: pass.latestMessage } : null,
    },
  });
}
