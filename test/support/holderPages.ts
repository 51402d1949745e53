/**
 * Fixtures of the holder page tests (test/holderPages.*.test.ts): the service they start from and
 * the Accept header of a browser.
 */
import { setAppleConfiguration } from './appleCredentials.ts';
import { createTemplate, loyaltyTemplate } from './passes.ts';
import { startTestService, type TestService } from './testService.ts';

/** What a browser sends as Accept when it opens a page. */
export const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/**
 * Starts a service whose job workers process templates, with the account "Coffee Club Ltd", an
 * entity, the test Apple configuration (test/support/appleCredentials.ts) and a processed loyalty
 * template whose fields have a change message and German localisations.
 * @returns The service, the account and the template's id.
 */
export async function startHolderPageService(): Promise<{ service: TestService; tenant: { accountId: string; token: string }; templateId: string }> {
  const service = await startTestService({ jobs: 'work' });
  const tenant = await service.createAccount('Coffee Club Ltd');
  await service.createEntity(tenant.accountId);
  await setAppleConfiguration(service, tenant.accountId);
  const templateId = await createTemplate(
    service,
    tenant.token,
    loyaltyTemplate({
      fields: {
        header: {
          one: { id: 'points', label: 'Points', defaultValue: '0', changeMessage: 'You now have %@ points.', localisation: { de: { label: 'Punkte' } } },
        },
        central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest', localisation: { de: { label: 'Mitglied', defaultValue: 'Gast' } } } },
        back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink.' } },
      },
    }),
  );
  return { service, tenant, templateId };
}
