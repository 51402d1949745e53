/**
 * Turns a template's images into the PNG files of an Apple Wallet bundle: each source image (PNG
 * or JPEG) is checked, converted to PNG and scaled to the size Apple gives for its role and the
 * pass style, at 1x, 2x and 3x (`logo.png`, `logo@2x.png`, `logo@3x.png`). Uses sharp
 * (https://sharp.pixelplumbing.com), libvips underneath.
 *
 * Sizes in points (Apple, "Wallet Developer Guide: Pass Design and Creation", image table:
 * https://developer.apple.com/library/archive/documentation/UserExperience/Conceptual/PassKit_PG/Creating.html):
 * icon 29 × 29 (required; cropped to a square), logo at most 160 × 50 (fitted, never cropped),
 * strip 375 × 144 on store cards and 375 × 98 on event tickets (cropped to fill). Generic passes
 * and boarding passes have no strip image: there the template's banner is used by Google Wallet
 * only (its `heroImage`).
 *
 * @module wallet/templateImages
 */
import sharp from 'sharp';
import { outboundRequest, OutboundRequestError, type DestinationPolicy, type Resolver } from '../net/outboundRequest.ts';
import type { TemplateDesign } from './templateDesign.ts';

/** The Apple bundle image a template image becomes, by pass style. */
export type AppleImageRole = 'icon' | 'logo' | 'strip' | 'eventLogo';

/** How one role is drawn: its box in points and whether the image fills it (cropped) or fits in it. */
interface RoleBox {
  width: number;
  height: number;
  fit: 'cover' | 'inside';
}

/** The scales Apple asks for (1x, 2x, 3x screens). */
export const SCALES = [1, 2, 3] as const;

/** Largest source image accepted, in pixels (width × height): 40 megapixels. */
export const MAX_SOURCE_PIXELS = 40_000_000;

/** A converted image: a bundle file name and its PNG bytes with their size in pixels. */
export interface BundleImage {
  /** e.g. `logo@2x.png`. */
  name: string;
  png: Buffer;
  width: number;
  height: number;
}

/** Why a source image cannot be used (the caller names the template member). */
export class TemplateImageError extends Error {
  override name = 'TemplateImageError';
  constructor(
    readonly code: 'image_unavailable' | 'image_not_png_or_jpeg' | 'image_too_large' | 'image_unreadable',
    detail: string,
  ) {
    super(detail);
  }
}

/** How images are fetched. */
export interface ImageFetchOptions {
  policy: DestinationPolicy;
  /** The time budget of the whole fetch (DNS, connect, TLS, response), redirects included, in ms. */
  timeoutMs: number;
  /** Largest image, in bytes. */
  maxBytes: number;
  /** Redirects followed (each checked again). */
  maxRedirects: number;
  /** DNS resolver (tests inject one). */
  resolve?: Resolver | undefined;
}

/** Images fetched at most this large, in bytes (5 MB). */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/**
 * The bytes of a template image reference: a `data:` URL (RFC 2397, base64) or an http(s) URL
 * fetched through the outbound guard (src/net/outboundRequest.ts).
 * @throws TemplateImageError `image_unavailable` (the URL cannot be fetched, or answers other
 *   than 200) or `image_too_large`.
 */
export async function loadImage(reference: string, options: ImageFetchOptions): Promise<Uint8Array> {
  const data = /^data:image\/(?:png|jpeg);base64,(.*)$/s.exec(reference);
  if (data) {
    const bytes = Buffer.from(data[1]!, 'base64');
    if (bytes.length > options.maxBytes)
      throw new TemplateImageError('image_too_large', `The image has ${bytes.length} bytes; at most ${options.maxBytes} are accepted.`);
    return bytes;
  }
  try {
    const response = await outboundRequest({
      method: 'GET',
      url: reference,
      headers: { accept: 'image/png, image/jpeg', 'user-agent': 'wallet-pass-service' },
      timeoutMs: options.timeoutMs,
      maxBodyBytes: options.maxBytes,
      maxRedirects: options.maxRedirects,
      policy: options.policy,
      resolve: options.resolve,
    });
    if (response.status !== 200) throw new TemplateImageError('image_unavailable', `${reference} answered ${response.status}.`);
    return response.body;
  } catch (error) {
    if (error instanceof TemplateImageError) throw error;
    if (error instanceof OutboundRequestError) {
      throw new TemplateImageError(error.code === 'too_large' ? 'image_too_large' : 'image_unavailable', `${reference} cannot be fetched: ${error.message}`);
    }
    throw error;
  }
}

/**
 * The bundle images a design has, by the template member they come from (`icon`, `logo`,
 * `banner`), with their role and box. The banner becomes the strip of store cards (loyalty,
 * storeCard, giftCard), coupons and event tickets only; a poster event ticket's logo is also its
 * `eventLogo` (126 × 30 points).
 */
export function appleImageRoles(
  design: Pick<TemplateDesign, 'templateType' | 'images' | 'eventDetails'>,
): { member: 'icon' | 'logo' | 'banner'; role: AppleImageRole; box: RoleBox }[] {
  const roles: { member: 'icon' | 'logo' | 'banner'; role: AppleImageRole; box: RoleBox }[] = [];
  if (design.images.icon) roles.push({ member: 'icon', role: 'icon', box: { width: 29, height: 29, fit: 'cover' } });
  if (design.images.logo) roles.push({ member: 'logo', role: 'logo', box: { width: 160, height: 50, fit: 'inside' } });
  const { templateType } = design;
  // A poster event ticket shows its logo as eventLogo (Apple, "Pass", iOS 18; WWDC24 session 10108).
  if (design.images.logo && templateType === 'eventTicket' && design.eventDetails) {
    roles.push({ member: 'logo', role: 'eventLogo', box: { width: 126, height: 30, fit: 'inside' } });
  }
  const storeCard = templateType === 'loyalty' || templateType === 'storeCard' || templateType === 'giftCard';
  if (design.images.banner && (storeCard || templateType === 'eventTicket' || templateType === 'coupon')) {
    roles.push({ member: 'banner', role: 'strip', box: { width: 375, height: templateType === 'eventTicket' ? 98 : 144, fit: 'cover' } });
  }
  return roles;
}

/**
 * Checks a source image and draws it at every scale.
 * @param source The fetched bytes.
 * @param role The bundle image it becomes (file name prefix).
 * @param box Its size in points and how it is fitted.
 * @returns Three PNG files: `<role>.png`, `<role>@2x.png`, `<role>@3x.png`.
 * @throws TemplateImageError when the bytes are not a PNG or JPEG image, cannot be decoded, or
 *   exceed {@link MAX_SOURCE_PIXELS}.
 */
export async function drawBundleImages(source: Uint8Array, role: AppleImageRole, box: RoleBox): Promise<BundleImage[]> {
  let metadata: Awaited<ReturnType<ReturnType<typeof sharp>['metadata']>>;
  try {
    metadata = await sharp(source, { limitInputPixels: false }).metadata();
  } catch {
    throw new TemplateImageError('image_unreadable', 'The image cannot be read; send a PNG or JPEG file.');
  }
  if (metadata.format !== 'png' && metadata.format !== 'jpeg') {
    throw new TemplateImageError('image_not_png_or_jpeg', `The image is ${metadata.format ?? 'of an unknown format'}; send a PNG or JPEG file.`);
  }
  const pixels = (metadata.width ?? 0) * (metadata.height ?? 0);
  if (pixels > MAX_SOURCE_PIXELS) {
    throw new TemplateImageError(
      'image_too_large',
      `The image has ${metadata.width} × ${metadata.height} pixels; at most ${MAX_SOURCE_PIXELS / 1_000_000} megapixels are accepted.`,
    );
  }
  try {
    return await Promise.all(
      SCALES.map(async (scale) => {
        const { data, info } = await sharp(source, { limitInputPixels: MAX_SOURCE_PIXELS })
          .rotate()
          .resize({ width: box.width * scale, height: box.height * scale, fit: box.fit, withoutEnlargement: box.fit === 'inside' })
          .png({ compressionLevel: 9, palette: false })
          .toBuffer({ resolveWithObject: true });
        return { name: scale === 1 ? `${role}.png` : `${role}@${scale}x.png`, png: data, width: info.width, height: info.height };
      }),
    );
  } catch {
    throw new TemplateImageError('image_unreadable', 'The image cannot be decoded; send a valid PNG or JPEG file.');
  }
}

/**
 * The size of a PNG file from its `IHDR` chunk (width and height, 4-byte big-endian integers at
 * bytes 16 and 20: PNG specification, section 11.2.2, https://www.w3.org/TR/png/#11IHDR).
 * @returns null for bytes that are not a PNG file.
 */
export function pngSize(png: Uint8Array): { width: number; height: number } | null {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (png.length < 24 || signature.some((byte, i) => png[i] !== byte)) return null;
  const view = new DataView(png.buffer, png.byteOffset, png.byteLength);
  return { width: view.getUint32(16), height: view.getUint32(20) };
}
