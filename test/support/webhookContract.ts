/**
 * Validates delivered webhook bodies against the contract's `webhooks:` section (the request
 * body schema of each event in generated/openapi.json), as responses are validated against
 * their operations: a body the contract does not describe fails the test.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

const document = JSON.parse(readFileSync(new URL('../../generated/openapi.json', import.meta.url), 'utf8')) as { webhooks: Record<string, unknown> };
const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormats as unknown as (a: Ajv2020) => void)(ajv);
ajv.addSchema({ ...document, $id: 'contract' });

/** The problems of `body` as the request body of the webhook `event` (`test` bodies use `TestWebhookDocument`); empty when it conforms. */
export function webhookBodyProblems(event: string, body: unknown): string[] {
  const ref =
    event === 'test' ? 'contract#/components/schemas/TestWebhookDocument' : `contract#/webhooks/${event}/post/requestBody/content/application~1json/schema`;
  if (event !== 'test' && !document.webhooks[event]) return [`The contract declares no webhook ${event}.`];
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}
