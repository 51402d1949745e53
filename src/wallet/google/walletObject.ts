/**
 * The Google Wallet object of a pass (Google Wallet API v1: `genericObject`, `loyaltyObject`,
 * `eventTicketObject`, `transitObject`, `offerObject`, `giftCardObject` — a gift card's
 * `cardNumber` is the pass's extId, else its UUID, and its `balance` a `Money` of micros, the
 * balance being counted in the currency's minor unit, https://developers.google.com/wallet/reference/rest/v1/Money; https://developers.google.com/wallet/reference/rest):
 * the class's per-pass members (src/wallet/google/walletClass.ts `objectTemplate`), the field
 * values as text modules (same ids as the class's), the barcode with its type and
 * `alternateText`, the loyalty points, the state, and `smartTapRedemptionValue` from the pass's
 * NFC value. Pure.
 *
 * States (https://developers.google.com/wallet/reference/rest/v1/State): `ACTIVE`; `INACTIVE`
 * for a deactivated pass and for a nullified one (Google has no "voided"; its content is gone
 * too); `EXPIRED` once `expiresAt` has passed.
 *
 * @module wallet/google/walletObject
 */
import { createHash } from 'node:crypto';
import type { walletobjects_v1 } from '@googleapis/walletobjects';
import type { GoogleWalletArtefact } from './walletClass.ts';
import { googleResourceId, withIssuer, type ClassIssuerData, type GoogleResource } from './walletClass.ts';
import { fitsSymbology, GOOGLE_PREFERRED_TYPE } from '../barcodeSymbology.ts';
import { currencyDigits } from '../templateDesign.ts';

/** The barcode types of Google Wallet per barcode type of the API. */
export const GOOGLE_BARCODE_TYPE = { qr: 'QR_CODE', code128: 'CODE_128', aztec: 'AZTEC', pdf417: 'PDF_417' } as const;

/** A pass as the object is rendered from. */
export interface GooglePassData {
  id: string;
  extId: string | null;
  templateId: string;
  status: 'issued' | 'active' | 'removed' | 'deactivated' | 'nullified';
  /** Field values by template field id (the loyalty `points` field included). */
  content: Record<string, string>;
  /** `enabled`, `type`, `source`, `value` (custom), `displayText` (boolean or caption). */
  barcode: {
    enabled: boolean;
    type: keyof typeof GOOGLE_BARCODE_TYPE;
    source: 'uuid' | 'extId' | 'custom';
    value?: string;
    displayText?: boolean | string;
  } | null;
  nfc: { enabled: boolean; source: 'uuid' | 'extId' | 'custom'; customValue?: string } | null;
  balance: number;
  expiresAt: Date | null;
}

/** The value of an identifier source (the pass UUID, its extId, or the custom value). */
function identifier(source: 'uuid' | 'extId' | 'custom', pass: GooglePassData, custom: string | undefined): string {
  return source === 'uuid' ? pass.id : source === 'extId' ? (pass.extId ?? '') : (custom ?? '');
}

/** The object state of a pass at a time. */
export function googleObjectState(pass: Pick<GooglePassData, 'status' | 'expiresAt'>, now: Date): 'ACTIVE' | 'INACTIVE' | 'EXPIRED' {
  if (pass.status === 'deactivated' || pass.status === 'nullified') return 'INACTIVE';
  if (pass.expiresAt && pass.expiresAt <= now) return 'EXPIRED';
  return 'ACTIVE';
}

/** The Google object type of a class type (`loyaltyClass` → `loyaltyObject`). */
export function objectTypeOf(classType: string): string {
  return classType.replace(/Class$/, 'Object');
}

/** The object of a pass for an issuer, at `now`. */
export function issuerObject(
  artefact: GoogleWalletArtefact,
  pass: GooglePassData,
  data: Omit<ClassIssuerData, 'templateId' | 'smartTap' | 'callbackUrl' | 'clearCallback'>,
  now: Date,
): GoogleResource {
  const id = googleResourceId(data.issuerId, pass.id);
  const template = withIssuer(artefact.objectTemplate, data);
  delete template.barcode;
  const body: Record<string, unknown> = {
    ...template,
    id,
    classId: googleResourceId(data.issuerId, pass.templateId),
    state: googleObjectState(pass, now),
  };
  if (pass.status !== 'nullified') {
    const modules: walletobjects_v1.Schema$TextModuleData[] = ((artefact.class.textModulesData as { id: string; header?: string }[] | undefined) ?? [])
      .filter((m) => pass.content[m.id] !== undefined)
      .map((m) => ({ id: m.id, ...(m.header ? { header: m.header } : {}), body: pass.content[m.id] }));
    if (modules.length) body.textModulesData = modules;
    if (pass.barcode?.enabled) {
      const value = identifier(pass.barcode.source, pass, pass.barcode.value);
      const caption = pass.barcode.displayText === true ? value : typeof pass.barcode.displayText === 'string' ? pass.barcode.displayText : undefined;
      const preferred = artefact.preferredBarcodeType;
      body.barcode = {
        type: preferred && fitsSymbology(preferred, value) ? GOOGLE_PREFERRED_TYPE[preferred] : GOOGLE_BARCODE_TYPE[pass.barcode.type],
        value,
        ...(caption ? { alternateText: caption } : {}),
      } satisfies walletobjects_v1.Schema$Barcode;
    }
    if (pass.nfc?.enabled) body.smartTapRedemptionValue = identifier(pass.nfc.source, pass, pass.nfc.customValue);
    if (artefact.classType === 'loyaltyClass') body.loyaltyPoints = { balance: { int: pass.balance } };
    if (artefact.classType === 'giftCardClass') {
      const currency = artefact.balanceCurrency ?? 'USD';
      Object.assign(body, {
        cardNumber: pass.extId ?? pass.id,
        balance: { micros: String(pass.balance * 10 ** (6 - currencyDigits(currency))), currencyCode: currency },
      } satisfies walletobjects_v1.Schema$GiftCardObject);
    }
  }
  if (pass.expiresAt) {
    const interval = body.validTimeInterval as walletobjects_v1.Schema$TimeInterval | undefined;
    body.validTimeInterval = { ...interval, end: { date: pass.expiresAt.toISOString() } } satisfies walletobjects_v1.Schema$TimeInterval;
  }
  return { resource: objectTypeOf(artefact.classType), id, body };
}

/** SHA-256 (hex) of a JSON value with its object members in sorted order (the same value, the same hash). */
export function jsonHash(value: unknown): string {
  const canonical = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(canonical)
      : v && typeof v === 'object' && !(v instanceof Date)
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
          )
        : v;
  return createHash('sha256')
    .update(JSON.stringify(canonical(value)))
    .digest('hex');
}

/**
 * SHA-256 of a pass's own values an object is rendered from (fields, barcode, NFC, balance,
 * status, expiry; not the template's design), at `now` (the state depends on it): unchanged when
 * only the design changed.
 */
export function passDataHash(pass: GooglePassData, now: Date): string {
  const { id, extId, templateId, status, content, barcode, nfc, balance, expiresAt } = pass;
  return jsonHash({ id, extId, templateId, status, content, barcode, nfc, balance, expiresAt, state: googleObjectState(pass, now) });
}

/**
 * SHA-256 of what an artefact gives its objects (the class type, the per-object members, the
 * text modules' ids and headers): two design versions with the same one render every object the
 * same, so objects written with one need no rewrite for the other.
 */
export function objectDesignHash(artefact: GoogleWalletArtefact): string {
  const modules = ((artefact.class.textModulesData as { id: string; header?: string }[] | undefined) ?? []).map((m) => ({
    id: m.id,
    header: m.header ?? null,
  }));
  // Members added later count only when set, so artefacts without them keep their hashes.
  const { preferredBarcodeType, balanceCurrency } = artefact;
  return jsonHash({
    classType: artefact.classType,
    objectTemplate: artefact.objectTemplate,
    modules,
    ...(preferredBarcodeType ? { preferredBarcodeType } : {}),
    ...(balanceCurrency ? { balanceCurrency } : {}),
  });
}
