/**
 * The design rules checked when a template is processed (the contract's
 * `PassTemplateProcessingError` lists the codes). The contract already checked every member's
 * shape; these rules span members or come from what Apple Wallet and Google Wallet accept.
 *
 * @module domain/passTemplates/validateDesign
 */
import type { components } from '../../../generated/api.d.ts';
import { fieldTranslations, placedFields, type PlacedField, type TemplateDesign } from '../../wallet/templateDesign.ts';

export type ProcessingError = components['schemas']['PassTemplateProcessingError'];

function fieldIdProblems(fields: PlacedField[]): ProcessingError[] {
  const problems: ProcessingError[] = [];
  const firstUse = new Map<string, string>();
  for (const { pointer, field } of fields) {
    if (!field.id) {
      problems.push({ code: 'field_id_missing', detail: `Slot ${pointer} has no id; every slot needs one.`, pointer: `${pointer}/id` });
      continue;
    }
    const first = firstUse.get(field.id);
    if (first) {
      problems.push({ code: 'duplicate_field_id', detail: `Slots ${first} and ${pointer} both use the id ${field.id}.`, pointer: `${pointer}/id` });
    } else firstUse.set(field.id, pointer);
  }
  return problems;
}

/**
 * Apple Wallet finds a translation by the default-language text it replaces (the
 * `<lang>.lproj/pass.strings` of PassKit bundles), so one text cannot translate two ways into
 * one language.
 */
function translationProblems(fields: PlacedField[]): ProcessingError[] {
  const problems: ProcessingError[] = [];
  const seen = new Map<string, { translated: string; at: string }>();
  for (const { pointer, language, member, text, translated } of fieldTranslations(fields)) {
    const key = `${language}\u0000${text}`;
    const at = `${pointer}/localisation/${language}/${member}`;
    const earlier = seen.get(key);
    if (!earlier) seen.set(key, { translated, at });
    else if (earlier.translated !== translated) {
      problems.push({
        code: 'ambiguous_translation',
        detail: `"${text}" is translated into ${language} as "${earlier.translated}" at ${earlier.at} and as "${translated}" at ${at}; Apple Wallet looks translations up by their text, so one text needs one translation per language.`,
        pointer: at,
      });
    }
  }
  return problems;
}

function requirementProblems(design: TemplateDesign): ProcessingError[] {
  const problems: ProcessingError[] = [];
  const { templateType } = design;
  if (!design.images.icon) {
    problems.push({ code: 'icon_missing', detail: 'Apple Wallet passes need an icon (icon.png); set images.icon.', pointer: '/images/icon' });
  }
  if ((templateType === 'loyalty' || templateType === 'transit') && !design.images.logo) {
    const member = templateType === 'loyalty' ? 'programLogo' : 'logo';
    problems.push({ code: 'logo_missing', detail: `Google Wallet ${templateType} classes need a logo (${member}); set images.logo.`, pointer: '/images/logo' });
  }
  // Google's offerClass requires a title (https://developers.google.com/wallet/reference/rest/v1/offerclass).
  if ((templateType === 'eventTicket' || templateType === 'loyalty' || templateType === 'coupon') && !design.centralTitle) {
    const member = templateType === 'loyalty' ? 'programName' : templateType === 'coupon' ? 'title' : 'eventName';
    problems.push({
      code: 'central_title_missing',
      detail: `Google Wallet ${templateType} classes need a title (${member}); set centralTitle.`,
      pointer: '/centralTitle',
    });
  }
  if (design.fields.central.two && templateType !== 'transit') {
    problems.push({
      code: 'central_two_not_transit',
      detail: 'fields.central.two is the destination of a transit boarding pass; other templates have one central field.',
      pointer: '/fields/central/two',
    });
  }
  const { barcode } = design;
  if (barcode.enabled && barcode.source === 'custom' && !barcode.value) {
    problems.push({ code: 'barcode_value_missing', detail: 'A barcode with source custom needs a value.', pointer: '/barcode/value' });
  }
  if (barcode.value && barcode.source !== 'custom') {
    problems.push({
      code: 'barcode_value_unused',
      detail: `barcode.value is used with source custom only; this barcode encodes the pass's ${barcode.source}.`,
      pointer: '/barcode/value',
    });
  }
  return problems;
}

/**
 * Checks a design.
 * @returns Every problem found, in a fixed order (requirements, field ids, translations); empty
 *   when the design can be rendered. Deterministic: the same design always gives the same list.
 */
export function designProblems(design: TemplateDesign): ProcessingError[] {
  const fields = placedFields(design);
  return [...requirementProblems(design), ...fieldIdProblems(fields), ...translationProblems(fields)];
}
