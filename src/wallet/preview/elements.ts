/**
 * The element tree of a preview, as plain objects in the shape satori reads (a React element:
 * `{ type, key, props: { style, children } }`; https://github.com/vercel/satori#documentation —
 * no React needed), and the record a layout keeps while it builds one: which text stands for
 * which field in which region, and the warnings of what did not fit. Pure.
 *
 * @module wallet/preview/elements
 */
import { fitText, type FontWeight } from './fontMetrics.ts';

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
  code: 'value_truncated' | 'image_missing' | 'contrast_low' | 'fields_hidden' | 'barcode_invalid';
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

/** The texts and warnings a layout collects. */
export class LayoutRecord {
  readonly warnings: PreviewWarning[] = [];

  /** Adds a warning once per code and pointer. */
  warn(warning: PreviewWarning): void {
    if (!this.warnings.some((w) => w.code === warning.code && w.pointer === warning.pointer)) this.warnings.push(warning);
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
    const fitted = fitText(shownText, style.size, style.weight, Math.max(0, maxWidth));
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
        style: { display: 'flex', fontSize: style.size, fontWeight: style.weight, color: style.color, whiteSpace: 'nowrap', lineHeight: 1.2, ...extra },
        children: fitted.text,
      },
    };
  }

  /** A text that wraps over as many lines as it needs (the back of a pass, Google's details). */
  paragraph(content: string, style: TextStyle, width: number, region: Region, pointer: string, part: string): Element {
    return {
      type: 'div',
      key: `${region}|${pointer}|${part}`,
      props: { style: { display: 'flex', width, fontSize: style.size, fontWeight: style.weight, color: style.color, lineHeight: 1.3 }, children: content },
    };
  }
}
