/**
 * The pass template the benchmarks issue their passes from: a loyalty card with a `points`
 * (loyalty) and a `member` field and the test images, as the `passTemplate` member of
 * `createPassTemplate`'s body.
 *
 * @module scripts/bench/support/benchTemplate
 */
import { ICON_PNG, LOGO_PNG } from '../../../test/support/images.ts';

/** The bench card; `extra` adds or replaces members (e.g. a barcode). */
export function benchTemplate(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'Bench card',
    templateType: 'loyalty',
    centralTitle: 'Coffee Club',
    images: { logo: LOGO_PNG, icon: ICON_PNG },
    fields: {
      header: { one: { id: 'points', label: 'Points', defaultValue: '0' } },
      central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } },
    },
    ...extra,
  };
}
