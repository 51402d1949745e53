/**
 * The legacy form of a pass template (PassEntry API reference: the legacy pass template, Show a pass template (deprecated)), derived from the
 * current content whatever the processing state. The mapping of areas and slots to legacy groups
 * and slots is documented on the contract's `LegacyPassTemplateAttributes`:
 * header one–three → header_one–header_three; central one–two → primary_one–primary_two;
 * details one–three → secOne–secThree; back one–five → backOne–backFive; auxiliary has no source.
 *
 * @module domain/passTemplates/serializeLegacyPassTemplate
 */
import type { components } from '../../../generated/api.d.ts';
import { compatibleTemplateType, type FieldArea, type TemplateField } from '../../wallet/templateDesign.ts';
import { contentOf, type PassTemplateRow } from './passTemplateStore.ts';

type Schemas = components['schemas'];
export type LegacyPassTemplateResource = Schemas['LegacyPassTemplate'];
type LegacySlot = Schemas['LegacyFieldSlot'];

/** Legacy group → its slots in order, each with the area slot it comes from (null: none). */
export const LEGACY_GROUPS = {
  header: [
    ['header_one', 'header', 'one'],
    ['header_two', 'header', 'two'],
    ['header_three', 'header', 'three'],
  ],
  primary: [
    ['primary_one', 'central', 'one'],
    ['primary_two', 'central', 'two'],
  ],
  secondary: [
    ['secOne', 'details', 'one'],
    ['secTwo', 'details', 'two'],
    ['secThree', 'details', 'three'],
  ],
  auxiliary: [
    ['auxOne', null, null],
    ['auxTwo', null, null],
    ['auxThree', null, null],
  ],
  backFields: [
    ['backOne', 'back', 'one'],
    ['backTwo', 'back', 'two'],
    ['backThree', 'back', 'three'],
    ['backFour', 'back', 'four'],
    ['backFive', 'back', 'five'],
  ],
} as const satisfies Record<string, readonly (readonly [string, FieldArea | null, string | null])[]>;

function legacySlot(slot: TemplateField | null | undefined): LegacySlot {
  return { id: slot?.id ?? null, label: slot?.label ?? null, default_value: slot?.defaultValue ?? null };
}

/** Serialises a template in the legacy form (PassEntry API reference: the legacy pass template): every group and slot present. */
export function serializeLegacyPassTemplate(row: PassTemplateRow): LegacyPassTemplateResource {
  const content = contentOf(row);
  const group = (slots: readonly (readonly [string, FieldArea | null, string | null])[]) =>
    Object.fromEntries(
      slots.map(([legacy, area, slot]) => [
        legacy,
        legacySlot(area && slot ? (content.fields[area] as Record<string, TemplateField | null | undefined>)[slot] : null),
      ]),
    );
  return {
    id: row.id,
    type: 'passTemplate',
    attributes: {
      backgroundColor: content.colors.background,
      labelColor: content.colors.label,
      textColor: content.colors.text,
      name: content.name,
      description: content.description,
      templateType: compatibleTemplateType(content.templateType),
      header: group(LEGACY_GROUPS.header) as Schemas['LegacyHeaderGroup'],
      primary: group(LEGACY_GROUPS.primary) as Schemas['LegacyPrimaryGroup'],
      secondary: group(LEGACY_GROUPS.secondary) as Schemas['LegacySecondaryGroup'],
      auxiliary: group(LEGACY_GROUPS.auxiliary) as Schemas['LegacyAuxiliaryGroup'],
      backFields: group(LEGACY_GROUPS.backFields) as Schemas['LegacyBackFieldsGroup'],
    },
  };
}
