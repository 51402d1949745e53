/**
 * Holder names in the scripts the previews draw (test/passPreviews.scripts.test.ts and the
 * preview bench, scripts/bench/passPreviews.ts): one per language of the holder page
 * (locales/holderPage/), then Cyrillic, Greek, Chinese (simplified and traditional), Korean,
 * Vietnamese, Czech, Turkish and the right-to-left Arabic and Hebrew. Each has letters outside
 * ASCII, the ones a font subset may lack (Polish `ł`, Czech `ř ů`, Turkish `İ ş ğ`, Vietnamese
 * `ễ ị ồ`).
 *
 * {@link missingGlyphTwin} gives the same text with those letters replaced by private-use
 * characters (U+E000…, which no font draws): a preview that draws a sample's letters as
 * missing-glyph boxes looks exactly like its twin's.
 */

/** A holder name in a script, and the language (BCP 47) of the card it is shown on. */
export interface ScriptSample {
  script: string;
  language: string;
  text: string;
}

export const SCRIPT_SAMPLES: readonly ScriptSample[] = [
  { script: 'English', language: 'en', text: 'Zoë O’Brien' },
  { script: 'German', language: 'de', text: 'Jürgen Weiß' },
  { script: 'Spanish', language: 'es', text: 'Begoña Núñez' },
  { script: 'French', language: 'fr', text: 'Françoise Lefèvre' },
  { script: 'Italian', language: 'it', text: 'Niccolò Abbà' },
  { script: 'Japanese', language: 'ja', text: '山田 花子 さくら' },
  { script: 'Dutch', language: 'nl', text: 'Geërt IJzerman' },
  { script: 'Polish', language: 'pl', text: 'Łucja Żak-Wąs' },
  { script: 'Portuguese', language: 'pt', text: 'João Gonçalves' },
  { script: 'Swedish', language: 'sv', text: 'Åsa Öberg' },
  { script: 'Cyrillic', language: 'ru', text: 'Юлия Ковальчук' },
  { script: 'Greek', language: 'el', text: 'Αλέξανδρος Παππάς' },
  { script: 'Chinese (simplified)', language: 'zh-Hans', text: '张伟 会员' },
  { script: 'Chinese (traditional)', language: 'zh-Hant', text: '陳小明 會員' },
  { script: 'Korean', language: 'ko', text: '김민준 회원' },
  { script: 'Vietnamese', language: 'vi', text: 'Nguyễn Thị Hồng' },
  { script: 'Czech', language: 'cs', text: 'Řehoř Růžička' },
  { script: 'Turkish', language: 'tr', text: 'İsmail Şahin Doğan' },
  { script: 'Arabic', language: 'ar', text: 'محمد العلي' },
  { script: 'Hebrew', language: 'he', text: 'דוד כהן' },
];

/** The samples that need a Chinese, Japanese or Korean font. */
export const CJK_SAMPLES: readonly ScriptSample[] = SCRIPT_SAMPLES.filter((s) => /^(ja|zh|ko)/.test(s.language));

/** A sample's text with each letter outside ASCII replaced by a private-use character (U+E000, U+E001…). */
export function missingGlyphTwin(text: string): string {
  let next = 0xe000;
  return [...text].map((char) => (/[\x20-\x7e]/.test(char) ? char : String.fromCodePoint(next++))).join('');
}
