/**
 * The Google Wallet class of a template version as it is written for an issuer: the rendered
 * class (src/wallet/googleWalletClass.ts) with the issuer's id and name in place of its
 * placeholders, images as public URLs (Google fetches them: "Image.sourceUri",
 * https://developers.google.com/wallet/reference/rest/v1/Image), and Smart Tap
 * (`enableSmartTap`, `redemptionIssuers`, https://developers.google.com/wallet/smart-tap) when
 * the account's readers have a collector id, and `callbackOptions.url` when save and delete
 * callbacks are on (https://developers.google.com/wallet/generic/use-cases/use-callbacks-for-saves-and-deletions;
 * `callbackOptions` of every class type, https://developers.google.com/wallet/reference/rest/v1/CallbackOptions). Pure.
 *
 * @module wallet/google/walletClass
 */
import type { GoogleWalletArtefact } from '../googleWalletClass.ts';

/** A Google resource id: `<issuerId>.<suffix>`, the suffix limited to alphanumerics, `.`, `_` and `-` (Google, "genericobject.get"). */
export function googleResourceId(issuerId: string, suffix: string): string {
  return `${issuerId}.${suffix.replace(/[^\w.-]/g, '_')}`;
}

/** What the issuer adds to a class. */
export interface ClassIssuerData {
  issuerId: string;
  /** `issuerName` of non-generic classes (the account's name). */
  issuerName: string;
  /** The template id (class id suffix). */
  templateId: string;
  /** The public URL of a template image (`logo`, `banner`), or null when it has none to show. */
  imageUrl: (member: 'logo' | 'banner') => string | null;
  /** Whether the issuer's readers redeem passes by Smart Tap. */
  smartTap: boolean;
  /** Where Google calls back on saves and deletions of the class's objects; null: no callbacks. */
  callbackUrl: string | null;
  /**
   * Without `callbackUrl`, send `callbackOptions: null` to clear a callback the class was written
   * with before (a patch leaves members it does not name as they are).
   */
  clearCallback?: boolean;
}

/** A class or object ready to write: its resource (`loyaltyClass`), id and body. */
export interface GoogleResource {
  resource: string;
  id: string;
  body: Record<string, unknown>;
}

const IMAGE_MEMBERS: Record<string, 'logo' | 'banner'> = { programLogo: 'logo', logo: 'logo', heroImage: 'banner' };

/** Replaces the placeholders of a rendered member and its image URLs (dropping images that have none). */
export function withIssuer<T extends Record<string, unknown>>(rendered: T, data: Pick<ClassIssuerData, 'issuerId' | 'issuerName' | 'imageUrl'>): T {
  const text = JSON.stringify(rendered)
    .replaceAll('{issuerId}', data.issuerId)
    .replaceAll('{issuerName}', JSON.stringify(data.issuerName).slice(1, -1));
  const out = JSON.parse(text) as Record<string, unknown>;
  for (const [member, image] of Object.entries(IMAGE_MEMBERS)) {
    if (!(member in out)) continue;
    const url = data.imageUrl(image);
    if (url) out[member] = { sourceUri: { uri: url } };
    else delete out[member];
  }
  return out as T;
}

/** The class of a template version for an issuer. */
export function issuerClass(artefact: GoogleWalletArtefact, data: ClassIssuerData): GoogleResource {
  const id = googleResourceId(data.issuerId, data.templateId);
  const body: Record<string, unknown> = withIssuer({ ...artefact.class, id }, data);
  if (data.smartTap) Object.assign(body, { enableSmartTap: true, redemptionIssuers: [data.issuerId] });
  if (data.callbackUrl) body.callbackOptions = { url: data.callbackUrl };
  else if (data.clearCallback) body.callbackOptions = null;
  return { resource: artefact.classType, id, body };
}
