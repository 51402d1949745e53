/**
 * The holder page's message catalogues (`locales/holderPage/<language>.json`), read as the
 * tests compare them: by language, and the keys one lacks of another.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

const dir = resolve(import.meta.dirname, '../../locales/holderPage');

/** The languages that have a catalogue, English first. */
export const CATALOGUE_LANGUAGES: string[] = readdirSync(dir)
  .filter((name) => name.endsWith('.json'))
  .map((name) => name.slice(0, -'.json'.length))
  .sort((a, b) => (a === 'en' ? -1 : b === 'en' ? 1 : a.localeCompare(b)));

/** A catalogue's messages (nested objects of strings). */
export type Catalogue = Record<string, any>;

/** The parsed catalogue of a language. */
export function catalogue(language: string): Catalogue {
  return JSON.parse(readFileSync(resolve(dir, `${language}.json`), 'utf8')) as Catalogue;
}

/** The dotted keys of `reference` that `other` lacks or leaves empty (not a non-empty string where the reference has one). */
export function missingKeys(reference: Catalogue, other: Catalogue, prefix = ''): string[] {
  return Object.entries(reference).flatMap(([key, value]) => {
    const path = `${prefix}${key}`;
    const theirs = other?.[key];
    if (typeof value === 'string') return typeof theirs === 'string' && theirs.trim() !== '' ? [] : [path];
    return missingKeys(value as Catalogue, (theirs ?? {}) as Catalogue, `${path}.`);
  });
}
