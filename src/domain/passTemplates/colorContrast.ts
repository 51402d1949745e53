/**
 * Colour contrast of a template's design, by WCAG 2.x: relative luminance
 * (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance) and contrast ratio
 * (https://www.w3.org/TR/WCAG21/#dfn-contrast-ratio), against the AA minimum for normal text,
 * 4.5:1 (Success Criterion 1.4.3, https://www.w3.org/TR/WCAG21/#contrast-minimum). A pass's
 * labels and values are small text in a wallet app and on the holder page, so a template whose
 * label or text colour falls short is recorded with a processing warning.
 *
 * @module domain/passTemplates/colorContrast
 */

/** WCAG 2.x AA minimum contrast ratio for normal text. */
export const MINIMUM_CONTRAST_RATIO = 4.5;

/** A processing warning (contract `PassTemplateProcessingWarning`). */
export interface ProcessingWarning {
  /**
   * `low_contrast` (this module), `glyph_missing` (src/domain/passTemplates/glyphCoverage.ts) or
   * `google_objects_pending` (src/delivery/googleObjectRewriteJob.ts).
   */
  code: 'low_contrast' | 'glyph_missing' | 'google_objects_pending';
  detail: string;
  /** JSON Pointer (RFC 6901) to the member at fault within the template's attributes. */
  pointer: string;
}

const channel = (value: number) => {
  const c = value / 255;
  return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
};

/**
 * The relative luminance of an sRGB colour, 0 (black) to 1 (white).
 * @param hex `#RRGGBB`.
 * @throws Error for another form.
 */
export function relativeLuminance(hex: string): number {
  const match = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (!match) throw new Error(`Not a #RRGGBB colour: ${hex}`);
  const [r, g, b] = match.slice(1).map((part) => channel(Number.parseInt(part, 16))) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/**
 * The contrast ratio of two colours, 1 to 21 (order does not matter).
 * @param a `#RRGGBB`.
 * @param b `#RRGGBB`.
 */
export function contrastRatio(a: string, b: string): number {
  const [lighter, darker] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

/**
 * The warnings of a design's colours: one per colour (`label`, `text`) under 4.5:1 against
 * `background`. The ratio is stated rounded down to two decimals, never overstating contrast.
 * @param colors The design's `#RRGGBB` colours.
 */
export function contrastWarnings(colors: { background: string; label: string; text: string }): ProcessingWarning[] {
  return (['label', 'text'] as const).flatMap((member) => {
    const ratio = contrastRatio(colors[member], colors.background);
    if (ratio >= MINIMUM_CONTRAST_RATIO) return [];
    return [
      {
        code: 'low_contrast' as const,
        detail: `colors.${member} ${colors[member]} on colors.background ${colors.background} has a contrast ratio of ${(Math.floor(ratio * 100) / 100).toFixed(2)}:1, under the 4.5:1 WCAG 2 AA minimum for text; holders may not be able to read it.`,
        pointer: `/colors/${member}`,
      },
    ];
  });
}
