/**
 * The element tree of a preview, as plain objects in the shape satori reads (a React element:
 * `{ type, key, props: { style, children } }`; https://github.com/vercel/satori#documentation —
 * no React needed), and the record a layout keeps while it builds one: which text stands for
 * which field in which region, the fonts its texts are drawn with (src/wallet/preview/fontFallback.ts),
 * and the warnings of what did not fit or cannot be drawn. Pure apart from the font files read
 * the first time a text needs them.
 *
 * @module wallet/preview/elements
 */
import { textFonts, type TextFonts } from './fontFallback.ts';
import { fitText, textWidth, type FontFace, type FontWeight } from './fontMetrics.ts';

/** A satori element. */
export interface Element {
  type: 'div' | 'img' | 'span';
  key: string | null;
  props: { style: Record<string, string | number>; children?: Element | Element[] | string; src?: string; width?: number; height?: number };
}

/** Where on the preview a text is: the areas the design guides name. */
export type Region = 'top' | 'primary' | 'secondary' | 'auxiliary' | 'back' | 'barcode' | 'title' | 'header' | 'points' | 'textModules';

/** A warning of a preview, naming the template member it is about (a JSON Pointer into the template). */
export interface PreviewWarning {
  code: 'value_truncated' | 'image_missing' | 'contrast_low' | 'fields_hidden' | 'barcode_invalid' | 'glyph_missing';
  pointer: string;
  detail: string;
}

/** A box: flex container (satori lays out with Yoga, flexbox only). */
export function box(style: Record<string, string | number>, children: (Element | null)[], key: string | null = null): Element {
  return { type: 'div', key, props: { style: { display: 'flex', ...style }, children: children.filter((c): c is Element => c !== null) } };
}

/** An image of a fixed size in points. */
export function image(src: string, width: number, height: number, style: Record<string, string | number> = {}): Element {
  return { type: 'img', key: null, props: { src, width, height, style: { width, height, ...style } } };
}

/** How a text is set. */
export interface TextStyle {
  size: number;
  weight: FontWeight;
  color: string;
  /** Letter case as Wallet shows labels. */
  uppercase?: boolean;
}

/** How a code point is written in a warning: `U+E000`. */
const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** The texts, fonts and warnings a layout collects. */
export class LayoutRecord {
  readonly warnings: PreviewWarning[] = [];
  /** The fallback faces the card's texts are drawn with (Inter's Latin faces aside). */
  readonly fallbackFaces = new Set<FontFace>();

  /** @param language The card's language (BCP 47): which CJK font draws Chinese characters. */
  constructor(readonly language: string) {}

  /** Adds a warning once per code and pointer. */
  warn(warning: PreviewWarning): void {
    if (!this.warnings.some((w) => w.code === warning.code && w.pointer === warning.pointer)) this.warnings.push(warning);
  }

  /** The width of a text on one line, in points, in the fonts it is drawn with. */
  textWidth(content: string, size: number, weight: FontWeight): number {
    return textWidth(content, size, textFonts(content, weight, this.language).faces);
  }

  /**
   * The fonts of a drawn text: its fallback faces join the card's; characters no font has add a
   * `glyph_missing` warning for the template member.
   * @returns The text's style members that name its fonts (none for Inter alone: the card's).
   */
  private fontsOf(content: string, weight: FontWeight, region: Region, pointer: string, part: string): { fonts: TextFonts; style: Record<string, string> } {
    const fonts = textFonts(content, weight, this.language);
    for (const face of fonts.faces.slice(1)) this.fallbackFaces.add(face);
    if (fonts.missing.length) {
      this.warn({
        code: 'glyph_missing',
        pointer,
        detail: `The ${part} "${content}" in the ${region} area has characters no font of the preview has (${fonts.missing.map((c) => codePoint(c)).join(', ')}); they are drawn as empty boxes, and a phone may lack them too.`,
      });
    }
    return { fonts, style: fonts.faces.length > 1 ? { fontFamily: fonts.faces.map((face) => face.font.name).join(', ') } : {} };
  }

  /**
   * A one-line text fitted in `maxWidth` points (truncated with an ellipsis as Wallet does), keyed
   * `<region>|<pointer>|<part>` so that its laid-out box can be found again (onNodeDetected).
   * A truncated text of a template field adds a `value_truncated` warning for it.
   */
  line(
    content: string,
    style: TextStyle,
    maxWidth: number,
    region: Region,
    pointer: string,
    part: string,
    extra: Record<string, string | number> = {},
  ): Element {
    const shownText = style.uppercase ? content.toUpperCase() : content;
    const { fonts, style: fontStyle } = this.fontsOf(shownText, style.weight, region, pointer, part);
    const fitted = fitText(shownText, style.size, fonts.faces, Math.max(0, maxWidth));
    if (fitted.truncated && pointer.startsWith('/')) {
      this.warn({
        code: 'value_truncated',
        pointer,
        detail: `The ${part} "${content}" is wider than the ${Math.round(maxWidth)} points the ${region} area gives it; the wallet shows "${fitted.text}".`,
      });
    }
    return {
      type: 'div',
      key: `${region}|${pointer}|${part}`,
      props: {
        style: {
          display: 'flex',
          ...fontStyle,
          fontSize: style.size,
          fontWeight: style.weight,
          color: style.color,
          whiteSpace: 'nowrap',
          lineHeight: 1.2,
          ...extra,
        },
        children: fitted.text,
      },
    };
  }

  /** A text that wraps over as many lines as it needs (the back of a pass, Google's details). */
  paragraph(content: string, style: TextStyle, width: number, region: Region, pointer: string, part: string): Element {
    const { style: fontStyle } = this.fontsOf(content, style.weight, region, pointer, part);
    return {
      type: 'div',
      key: `${region}|${pointer}|${part}`,
      props: {
        style: { display: 'flex', ...fontStyle, width, fontSize: style.size, fontWeight: style.weight, color: style.color, lineHeight: 1.3 },
        children: content,
      },
    };
  }
}
