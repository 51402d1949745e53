/**
 * Which wallet a holder's browser leads to, from its `User-Agent` (RFC 9110 §10.1.5), decided on
 * the server so the holder page works without JavaScript.
 *
 * - `apple`: iPhone, iPad and iPod (every iOS browser, in-app browsers of mail and social apps
 *   included, carries the device name: https://developer.apple.com/documentation/webkit/wkwebview/customuseragent),
 *   and Safari or Chrome on macOS, which hand a `.pkpass` to Wallet on a paired iPhone or show it
 *   (iPadOS 13+ in its default "desktop" mode presents itself as Safari on macOS, so it lands here too).
 * - `google`: Android (https://developer.chrome.com/docs/multidevice/user-agent: every Android
 *   browser names `Android`).
 * - `other`: anything else (desktops, unknown clients, no header).
 *
 * @module domain/holderPages/holderPlatform
 */

/** The wallet a browser leads to. */
export type HolderPlatform = 'apple' | 'google' | 'other';

const IOS = /\b(?:iPhone|iPad|iPod)\b/;
const ANDROID = /\bAndroid\b/;
const MACOS = /\bMacintosh\b|\bMac OS X\b/;
/** Safari (Version/… Safari/…) and Chrome (Chrome/…), but not Firefox, Opera or Edge, which do not hand passes to Wallet. */
const MAC_WALLET_BROWSER = /\b(?:Version\/[\d.]+ (?:Mobile\/\w+ )?Safari|Chrome)\/[\d.]+/;
const MAC_OTHER_BROWSER = /\b(?:Firefox|OPR|Edg)\//;

/**
 * The platform of a `User-Agent` value.
 * @param userAgent The header's value; undefined when the request has none.
 */
export function platformOf(userAgent: string | undefined): HolderPlatform {
  if (!userAgent) return 'other';
  if (IOS.test(userAgent)) return 'apple';
  if (ANDROID.test(userAgent)) return 'google';
  if (MACOS.test(userAgent) && MAC_WALLET_BROWSER.test(userAgent) && !MAC_OTHER_BROWSER.test(userAgent)) return 'apple';
  return 'other';
}
