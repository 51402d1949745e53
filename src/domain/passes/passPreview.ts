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
import { requirePass, type PassRow } from './passStore.ts';
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
  return previewSourceOfPass(prisma, await requirePass(prisma, accountId, idOrExtId), options);
}

/**
 * The preview source of a pass already read (the holder page's, src/api/holderPages/getHolderPassPage.ts).
 * @param options.withoutBarcode Draw no barcode (the holder page's card: the page shows the barcode once, apart).
 * @throws ConflictError `template_not_processed` when its template has no processed design yet;
 *   ValidationError for `lang` (src/domain/passTemplates/templatePreview.ts `previewLanguage`).
 */
export async function previewSourceOfPass(
  prisma: PrismaExecutor & SqlExecutor,
  pass: PassRow,
  options: { lang?: string; acceptLanguage?: string; withoutBarcode?: boolean },
): Promise<PreviewSource> {
  const { withoutBarcode, ...language } = options;
  const barcode = withoutBarcode ? null : (pass.barcode as BarcodeSettings | null);
  const message = barcode?.enabled ? identifierValue(barcode.source, pass, barcode.value) : null;
  const altText = barcode && message !== null ? barcodeCaption(barcode, message) : undefined;
  const template = await prisma.passTemplate.findUniqueOrThrow({ where: { id: pass.templateId }, select: { notificationHeader: true } });
  return templatePreviewSource(prisma, pass.accountId, pass.templateId, {
    ...language,
    pass: {
      tag: `${pass.id}/${pass.updatedAt.getTime()}${withoutBarcode ? '/no-barcode' : ''}`,
      values: passContentOf(pass),
      barcode: barcode && message !== null ? { format: barcode.type, message, ...(altText ? { altText } : {}) } : null,
      points: pass.balance,
      latestMessage: pass.latestMessage ? { label: template.notificationHeader ?? 'Message', value: pass.latestMessage } : null,
    },
  });
}
