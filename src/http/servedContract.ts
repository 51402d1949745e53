/**
 * The contract as a running server publishes it (`GET /openapi.json`, `GET /openapi.yaml`): the
 * committed bundle (`generated/openapi.json`, `generated/openapi.yaml`) with its `servers` list
 * replaced by the one server that answers, so that a client generated from a deployment's
 * document calls that deployment, not the bundle's local default (`http://127.0.0.1:3000`).
 *
 * Both files are read once; each request only joins the text around its `servers` member with the
 * request's base URL (`PUBLIC_BASE_URL`, or on the embedded default the request's own base, as
 * for links), so serving stays a string concatenation.
 *
 * @module http/servedContract
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The served documents for one base URL. */
export interface ServedContract {
  /** `openapi.json` with `servers: [{ url: baseUrl, … }]`. */
  json(baseUrl: string): string;
  /** `openapi.yaml` with the same `servers`. */
  yaml(baseUrl: string): string;
}

/** What `servers` says about the one server. */
const DESCRIPTION = 'This server (the one that served this document).';

/** Stands in for the servers list while the bundle is split; never occurs in the contract. */
const PLACEHOLDER = '\u0000servers\u0000';

/**
 * Loads the bundles from `generatedDir` and splits them around `servers`.
 * @throws Error when a bundle is missing or the YAML bundle has no top-level `servers:` block
 *   (the layout `redocly bundle` writes).
 */
export function loadServedContract(generatedDir: string): ServedContract {
  const document = JSON.parse(readFileSync(resolve(generatedDir, 'openapi.json'), 'utf8')) as Record<string, unknown>;
  // Keep the member where the bundle has it (after info), so the served JSON reads like the file.
  const withPlaceholder = Object.fromEntries(Object.entries(document).map(([key, value]) => [key, key === 'servers' ? PLACEHOLDER : value]));
  const [jsonHead, jsonTail] = JSON.stringify(withPlaceholder, null, 2).split(JSON.stringify(PLACEHOLDER)) as [string, string];

  const yamlText = readFileSync(resolve(generatedDir, 'openapi.yaml'), 'utf8');
  // The top-level `servers:` line and its indented (or list) lines up to the next top-level key.
  const block = /^servers:\n(?:[ -].*\n)*/m.exec(yamlText);
  if (!block) throw new Error(`${generatedDir}/openapi.yaml has no top-level servers block`);
  const yamlHead = yamlText.slice(0, block.index);
  const yamlTail = yamlText.slice(block.index + block[0].length);

  const servers = (baseUrl: string) => [{ url: baseUrl, description: DESCRIPTION }];
  return {
    json: (baseUrl) => jsonHead + JSON.stringify(servers(baseUrl), null, 2).replace(/\n/g, '\n  ') + jsonTail,
    // JSON strings are YAML double-quoted scalars, so the URL needs no YAML escaping of its own.
    yaml: (baseUrl) => `${yamlHead}servers:\n  - url: ${JSON.stringify(baseUrl)}\n    description: ${JSON.stringify(DESCRIPTION)}\n${yamlTail}`,
  };
}
