/**
 * What the holder pages say, in the holder's language: the message catalogues of
 * `locales/holderPage/<language>.json` (one file per language, the keys of `en.json`), loaded
 * once by i18next (https://www.i18next.com/overview/api#createinstance) with English as the
 * fallback of a missing key. Interpolated values (`{{symbology}}`) are not escaped here: the page
 * escapes every text it writes (src/domain/holderPages/holderPageHtml.ts).
 *
 * @module domain/holderPages/holderPageMessages
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import i18next, { type TFunction } from 'i18next';
import { packageRoot } from '../../packageRoot.ts';

/** The folder of the catalogues, one `<language>.json` (ISO 639-1) each. */
export const HOLDER_PAGE_LOCALES_DIR = resolve(packageRoot, 'locales/holderPage');

/** The language shown when the holder accepts none of the catalogues' (and the fallback of a missing key). */
export const DEFAULT_PAGE_LANGUAGE = 'en';

function loadCatalogues(): Record<string, { translation: Record<string, unknown> }> {
  const files = readdirSync(HOLDER_PAGE_LOCALES_DIR).filter((name) => name.endsWith('.json'));
  return Object.fromEntries(
    files.map((name) => [name.slice(0, -'.json'.length), { translation: JSON.parse(readFileSync(join(HOLDER_PAGE_LOCALES_DIR, name), 'utf8')) }]),
  );
}

const resources = loadCatalogues();

/**
 * The languages of the catalogues, English first (so that a request without `Accept-Language`
 * gets English from `req.acceptsLanguages`, which answers the first offered then).
 */
export const PAGE_LANGUAGES: readonly string[] = [
  DEFAULT_PAGE_LANGUAGE,
  ...Object.keys(resources)
    .filter((l) => l !== DEFAULT_PAGE_LANGUAGE)
    .sort(),
];

const messages = i18next.createInstance();
// initAsync false: with resources given, init completes before it returns (no backend to wait for).
void messages.init({
  resources,
  lng: DEFAULT_PAGE_LANGUAGE,
  fallbackLng: DEFAULT_PAGE_LANGUAGE,
  supportedLngs: [...PAGE_LANGUAGES],
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
});

/** The messages of one language, as i18next's `t` (`t('gone.title')`, `t('webPass.barcodeLabel', { symbology })`). */
export type PageMessages = TFunction;

/**
 * The messages of a page language.
 * @param language One of {@link PAGE_LANGUAGES}; another falls back to English.
 */
export function pageMessages(language: string): PageMessages {
  return messages.getFixedT(PAGE_LANGUAGES.includes(language) ? language : DEFAULT_PAGE_LANGUAGE);
}
