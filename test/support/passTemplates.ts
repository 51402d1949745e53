/**
 * Fixtures of the pass template tests (test/passTemplates.*.test.ts): the service they start
 * from, the payloads they send, and the API calls they make, bound to a service and tenant that
 * `beforeAll` sets (read when a call is made).
 */
import type { Response, Test } from 'supertest';
import { ICON_PNG, LOGO_PNG, BANNER_PNG } from './images.ts';
import { startTestService, type TestService } from './testService.ts';

/** An account and its API key, as `TestService.createAccount` answers. */
export type Tenant = { accountId: string; token: string };

/**
 * Starts a service whose job workers process templates (`jobs: 'work'`), with two accounts:
 * `tenant` ("Coffee Club Ltd") and `other` ("Other Tenant").
 */
export async function startTemplateService(): Promise<{ service: TestService; tenant: Tenant; other: Tenant }> {
  const service = await startTestService({ jobs: 'work' });
  const tenant = await service.createAccount('Coffee Club Ltd');
  const other = await service.createAccount('Other Tenant');
  return { service, tenant, other };
}

/** The full §2.1 payload of a create request: localisation, locations, beacons, app links. */
export function fullTemplate(overrides: Record<string, unknown> = {}) {
  return {
    name: 'Coffee Club Card',
    templateType: 'loyalty',
    defaultLanguage: 'en',
    centralTitle: 'Coffee Club',
    notificationHeader: 'Coffee Club news',
    description: 'Loyalty card of the Coffee Club',
    colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
    images: {
      banner: BANNER_PNG,
      logo: LOGO_PNG,
      icon: ICON_PNG,
      watermark: { color: 'light', position: 'bottomRight' },
    },
    fields: {
      header: { one: { id: 'points', label: 'Points', defaultValue: '0', localisation: { de: { label: 'Punkte', defaultValue: '0' } } } },
      central: {
        one: {
          id: 'member',
          label: 'Member',
          defaultValue: 'Guest',
          localisation: { de: { label: 'Mitglied', defaultValue: 'Gast' }, fr: { label: 'Membre' } },
        },
      },
      details: {
        one: { id: 'tier', label: 'Tier', defaultValue: 'Bronze', localisation: { de: { label: 'Stufe' } } },
        two: { id: 'since', label: 'Member since', defaultValue: '2026' },
        three: { id: 'shop', label: 'Home shop', defaultValue: 'Soho' },
      },
      back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink.' } },
    },
    appLinking: {
      apple: { appStoreUrl: ['https://apps.apple.com/gb/app/coffee-club/id1234567890'] },
      google: { app: { playStoreUrl: 'https://play.google.com/store/apps/details?id=com.example.coffeeclub' }, displayText: { text: 'Open the app' } },
    },
    barcode: { enabled: true, type: 'qr', source: 'custom', value: 'COFFEE-CLUB' },
    locations: [{ name: 'Soho shop', latitude: 51.5136, longitude: -0.1365, radius: 100, message: 'Your coffee is one minute away.' }],
    beacons: [{ name: 'Counter', proximityUuid: 'f7826da6-4fa2-4e98-8024-bc5b71e0893e', major: 1, minor: 7, message: 'Show this card at the counter.' }],
    ...overrides,
  };
}

/** The smallest template that processes: a generic one with an icon. */
export function minimalTemplate(overrides: Record<string, unknown> = {}) {
  return { name: 'Minimal', templateType: 'generic', images: { icon: ICON_PNG }, ...overrides };
}

/** The attributes a processed template shows for `fullTemplate()`. */
export const fullAttributes = () => ({ ...fullTemplate(), templateKind: 'loyalty', transitType: null, applePassTypeIdentifier: null });

/** Expects a 400 `validation_failed` answer whose errors include one with this source. */
export function expectValidationError(res: Response, source: { pointer: string } | { parameter: string }) {
  expect(res.status).toBe(400);
  expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ status: '400', code: 'validation_failed', source })]));
}

/**
 * The template API calls, bound to the service and tenant the getters return when a call is made
 * (a test file sets them in `beforeAll`); a call may name another token or service.
 */
export function templateApi(service: () => TestService, tenant: () => Tenant) {
  /** createPassTemplate, unanswered (expect on it). */
  function create(passTemplate: unknown, token = tenant().token, svc = service()): Test {
    return svc.api.post('/api/v1/pass-templates').set(svc.auth(token)).send({ passTemplate });
  }

  /** updatePassTemplate, unanswered (expect on it). */
  function patch(id: string, passTemplate: unknown, token = tenant().token): Test {
    return service().api.patch(`/api/v1/pass-templates/${id}`).set(service().auth(token)).send({ passTemplate });
  }

  /** getPassTemplate, expecting 200; returns its resource object. */
  async function show(id: string, token = tenant().token, svc = service()) {
    const res = await svc.api.get(`/api/v1/pass-templates/${id}`).set(svc.auth(token)).expect(200);
    return res.body.data as { id: string; type: string; attributes: Record<string, unknown> };
  }

  /** Polls the template (as a client polls `meta.links.self`) until it is no longer processing. */
  async function settled(id: string, token = tenant().token, svc = service()) {
    for (;;) {
      const data = await show(id, token, svc);
      if (data.attributes.processingStatus !== 'processing') return data;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** Creates a template (expecting 202) and returns it once processing is over, processed or failed. */
  async function createProcessed(passTemplate: unknown, token = tenant().token) {
    const res = await create(passTemplate, token).expect(202);
    return settled(res.body.id, token);
  }

  return { create, patch, show, settled, createProcessed };
}
