/**
 * Turns pass rows into `pass` resource objects (PassEntry API reference: the pass resource; Show loyalty; Show a pass), with the extra
 * content the `include…` parameters ask for. The derived members are decided here and described
 * in the contract: `downloadUrl`, `passType`, the encoded `barcode` value and `nfc` message, the
 * loyalty field in `passContent`, `passDesign` and `passSource`.
 *
 * @module domain/passes/serializePass
 */
import type { components } from '../../../generated/api.d.ts';
import { toNullableTimestamp, toTimestamp } from '../serialize.ts';
import type { PassTemplateType } from '../../../generated/prisma/client.ts';
import { contentOf, type PassTemplateRow } from '../passTemplates/passTemplateStore.ts';
import { fullAttributes } from '../passTemplates/serializePassTemplate.ts';
import { barcodeCaption, identifierValue, LOYALTY_FIELD_ID, type BarcodeSettings, type NfcSettings } from './passRules.ts';
import type { PassRow } from './passStore.ts';

type Schemas = components['schemas'];
export type PassResource = Schemas['Pass'];
export type PassDesign = Schemas['PassDesign'];
type PassSourcePlatform = Schemas['PassSource']['platform'];

/** `passType` per template type (the contract's `PassType`: Apple style names, as PassEntry). */
const PASS_TYPE: Record<PassTemplateType, Schemas['PassType']> = {
  generic: 'generic',
  eventTicket: 'eventTicket',
  storeCard: 'storeCard',
  loyalty: 'storeCard',
  transit: 'transit',
  coupon: 'generic',
  giftCard: 'storeCard',
};

/** Extra content of a pass, as the `include…` parameters ask (PassEntry API reference: Show loyalty; Show a pass). */
export interface PassExtras {
  /** The template's design (`includePassDesign`). */
  design?: PassDesign;
  /** `includeLocations`: add `locations` when the pass has any. */
  locations?: boolean;
  /** `includeBeacons`: add `beacons` when the pass has any. */
  beacons?: boolean;
  /** `includePassSource`: add `passSource` for this wallet unless the pass is `active`. */
  passSource?: PassSourcePlatform;
  /** The pass's "Save to Google Wallet" link, when the account has Google credentials. */
  googleSaveUrl?: string;
}

/** The `include…` query parameters. */
export interface IncludeParameters {
  includePassDesign?: boolean;
  includeLocations?: boolean;
  includeBeacons?: boolean;
  includePassSource?: PassSourcePlatform;
}

/** The holder page of a pass, `<base>/passes/<id>` (served by the holder pages). */
export function passDownloadUrl(baseUrl: string, id: string): string {
  return `${baseUrl}/passes/${id}`;
}

/** The `passDesign` of a pass: the design members of its template's attributes (contract `PassDesign`). */
export function passDesignOf(template: PassTemplateRow): PassDesign {
  const { templateType, templateKind, transitType, defaultLanguage, centralTitle, notificationHeader, description, colors, images, fields, appLinking } =
    fullAttributes(contentOf(template));
  return { templateType, templateKind, transitType, defaultLanguage, centralTitle, notificationHeader, description, colors, images, fields, appLinking };
}

function barcodeOf(row: PassRow): Schemas['PassBarcode'] {
  const barcode = row.barcode as BarcodeSettings | null;
  if (!barcode?.enabled) return {};
  const value = identifierValue(barcode.source, row, barcode.value);
  const displayText = barcodeCaption(barcode, value);
  return { type: barcode.type, source: barcode.source, value, ...(displayText ? { displayText } : {}) };
}

function nfcOf(row: PassRow): string | null {
  const nfc = row.nfc as NfcSettings | null;
  return nfc ? identifierValue(nfc.source, row, nfc.customValue) : null;
}

/**
 * The field values of a pass as text (`passContent`); the loyalty field shows the current
 * balance. Also what wallet messages render `%{fieldId}` placeholders from (src/delivery/walletMessagingJob.ts).
 */
export function passContentOf(row: Pick<PassRow, 'content' | 'balance'>): Record<string, string> {
  const content = { ...(row.content as Record<string, string>) };
  if (Object.hasOwn(content, LOYALTY_FIELD_ID)) content[LOYALTY_FIELD_ID] = String(row.balance);
  return content;
}

/**
 * Serialises a pass.
 * @param baseUrl Absolute base of links (`PUBLIC_BASE_URL` or the request's).
 * @param extras What the `include…` parameters added (none by default).
 */
export function serializePass(row: PassRow, baseUrl: string, extras: PassExtras = {}): PassResource {
  const downloadUrl = passDownloadUrl(baseUrl, row.id);
  const locations = row.locations as Schemas['PassTemplateLocations'];
  const beacons = row.beacons as Schemas['PassTemplateBeacons'];
  return {
    id: row.id,
    type: 'pass',
    attributes: {
      downloadUrl,
      passType: PASS_TYPE[row.template.templateType],
      ...(row.deviceType ? { deviceType: row.deviceType } : {}),
      createdAt: toTimestamp(row.createdAt),
      status: row.status,
      extId: row.extId,
      passTemplateUuid: row.templateId,
      passTemplateName: row.template.name,
      nfc: nfcOf(row),
      barcode: barcodeOf(row),
      passContent: passContentOf(row),
      addedAt: toNullableTimestamp(row.addedAt),
      removedAt: toNullableTimestamp(row.removedAt),
      deactivatedAt: toNullableTimestamp(row.deactivatedAt),
      nullifiedAt: toNullableTimestamp(row.nullifiedAt),
      expiresAt: toNullableTimestamp(row.expiresAt),
      latestMessage: row.latestMessage,
      groupTags: row.groupTags,
      ...(extras.design ? { passDesign: extras.design } : {}),
      ...(extras.locations && locations.length ? { locations } : {}),
      ...(extras.beacons && beacons.length ? { beacons } : {}),
      ...(extras.passSource && row.status !== 'active'
        ? {
            passSource: {
              platform: extras.passSource,
              url: (extras.passSource === 'google' ? extras.googleSaveUrl : undefined) ?? `${downloadUrl}/${extras.passSource}`,
            },
          }
        : {}),
    },
  };
}
