/**
 * Whether the previews can draw a design's texts: its `centralTitle`, and each field's `label`
 * and `defaultValue` with their translations, checked against the fonts of the previews
 * (src/wallet/preview/fontFallback.ts: Latin, Latin Extended, Cyrillic, Greek, Vietnamese,
 * Hebrew, Arabic, Chinese, Japanese and Korean). A text with characters none of them has
 * (private-use characters, emoji…) is recorded with a `glyph_missing` processing warning naming
 * the member, as the preview of such a text carries a `glyph_missing` preview warning: the
 * previews and the holder page draw those characters as empty boxes.
 *
 * @module domain/passTemplates/glyphCoverage
 */
import { textFonts } from '../../wallet/preview/fontFallback.ts';
import { placedFields, type TemplateDesign } from '../../wallet/templateDesign.ts';
import type { ProcessingWarning } from './colorContrast.ts';

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/**
 * The `glyph_missing` warnings of a design: one per text member with characters no preview font has.
 * @throws Error when a font file of an installed font package cannot be read.
 */
export function glyphWarnings(design: TemplateDesign): ProcessingWarning[] {
  const texts: { pointer: string; text: string; language: string }[] = [];
  if (design.centralTitle) texts.push({ pointer: '/centralTitle', text: design.centralTitle, language: design.defaultLanguage });
  for (const { pointer, field } of placedFields(design)) {
    for (const member of ['label', 'defaultValue'] as const) {
      const text = field[member];
      if (text) texts.push({ pointer: `${pointer}/${member}`, text, language: design.defaultLanguage });
    }
    for (const [language, translation] of Object.entries(field.localisation ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
      for (const member of ['label', 'defaultValue'] as const) {
        const text = translation?.[member];
        if (text) texts.push({ pointer: `${pointer}/localisation/${language}/${member}`, text, language });
      }
    }
  }
  return texts.flatMap(({ pointer, text, language }) => {
    const { missing } = textFonts(text, 400, language);
    if (!missing.length) return [];
    const member = pointer.slice(1).replaceAll('/', '.');
    return [
      {
        code: 'glyph_missing' as const,
        detail: `${member} "${text}" has characters that no font of the previews has (${missing.map(codePoint).join(', ')}); the previews and the holder page draw them as empty boxes, and a phone may lack them too.`,
        pointer,
      },
    ];
  });
}
