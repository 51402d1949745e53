/**
 * Fixed designs of the preview tests (test/passPreviews.test.ts, test/previewRendering.test.ts)
 * and of the preview bench: one per Apple pass style and Google card type, with every area
 * filled, as `createPassTemplate` bodies (`passTemplate` member). Images are the test images of
 * test/support/images.ts (solid colours), so a reference PNG changes only with the layout.
 */
import { BANNER_PNG, ICON_PNG, LOGO_PNG } from './images.ts';

const images = { icon: ICON_PNG, logo: LOGO_PNG, banner: BANNER_PNG };

/** A loyalty card (Apple storeCard, Google loyalty). */
export const LOYALTY_DESIGN = {
  name: 'Coffee Club Card',
  templateType: 'loyalty',
  centralTitle: 'Coffee Club',
  colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
  images,
  fields: {
    header: { one: { id: 'points', label: 'Points', defaultValue: '120', localisation: { de: { label: 'Punkte' } } } },
    central: { one: { id: 'member', label: 'Member', defaultValue: 'Ada Lovelace', localisation: { de: { label: 'Mitglied' } } } },
    details: { one: { id: 'tier', label: 'Tier', defaultValue: 'Gold' }, two: { id: 'since', label: 'Since', defaultValue: '2021' } },
    back: { one: { id: 'terms', label: 'Terms', defaultValue: 'One stamp per drink. Ten stamps make a free coffee.' } },
  },
  barcode: { enabled: true, type: 'qr', source: 'custom', value: 'COFFEE-CLUB-0001' },
};

/** A store card (Apple storeCard, Google generic). */
export const STORE_CARD_DESIGN = {
  name: 'Gift card',
  templateType: 'storeCard',
  centralTitle: 'Bloom Florist',
  colors: { background: '#F4F1EA', label: '#5B4636', text: '#1F1A17' },
  images,
  fields: {
    header: { one: { id: 'card', label: 'Card', defaultValue: '4411' } },
    central: { one: { id: 'balance', label: 'Balance', defaultValue: '£25.00' } },
    details: {
      one: { id: 'holder', label: 'Holder', defaultValue: 'Grace Hopper' },
      two: { id: 'expires', label: 'Expires', defaultValue: '12/27' },
      three: { id: 'shop', label: 'Shop', defaultValue: 'Soho' },
    },
    back: { one: { id: 'help', label: 'Help', defaultValue: 'Call 020 7946 0000.' } },
  },
  barcode: { enabled: true, type: 'code128', source: 'custom', value: 'GIFT4411' },
};

/** An event ticket (Apple eventTicket, Google event ticket). */
export const EVENT_TICKET_DESIGN = {
  name: 'Concert ticket',
  templateType: 'eventTicket',
  centralTitle: 'Summer Sounds',
  colors: { background: '#2D1B4E', label: '#C9B6F2', text: '#FFFFFF' },
  images,
  fields: {
    header: { one: { id: 'date', label: 'Date', defaultValue: '14 Jun' } },
    central: { one: { id: 'event', label: 'Event', defaultValue: 'Night Orchestra' } },
    details: {
      one: { id: 'gate', label: 'Gate', defaultValue: 'B' },
      two: { id: 'row', label: 'Row', defaultValue: '12' },
      three: { id: 'seat', label: 'Seat', defaultValue: '7' },
    },
    back: { one: { id: 'venue', label: 'Venue', defaultValue: 'Riverside Hall, 1 Quay Street' } },
  },
  barcode: { enabled: true, type: 'pdf417', source: 'custom', value: 'TICKET-0001' },
};

/** A generic pass (Apple generic, Google generic). */
export const GENERIC_DESIGN = {
  name: 'Staff badge',
  templateType: 'generic',
  centralTitle: 'Acme Labs',
  colors: { background: '#FFFFFF', label: '#5F6368', text: '#202124' },
  images,
  fields: {
    header: { one: { id: 'floor', label: 'Floor', defaultValue: '3' } },
    central: { one: { id: 'name', label: 'Name', defaultValue: 'Katherine Johnson' } },
    details: { one: { id: 'team', label: 'Team', defaultValue: 'Orbits' }, two: { id: 'role', label: 'Role', defaultValue: 'Engineer' } },
    back: { one: { id: 'lost', label: 'If found', defaultValue: 'Return to reception.' } },
  },
  barcode: { enabled: true, type: 'aztec', source: 'custom', value: 'STAFF-042' },
};

/** A transit pass (Apple boardingPass, Google transit; create starts transit templates at transitType `other`). */
export const TRANSIT_DESIGN = {
  name: 'Rail ticket',
  templateType: 'transit',
  centralTitle: 'Northern Rail',
  colors: { background: '#0B3D2E', label: '#9FE2BF', text: '#FFFFFF' },
  images,
  fields: {
    header: { one: { id: 'coach', label: 'Coach', defaultValue: 'C' } },
    central: { one: { id: 'from', label: 'From', defaultValue: 'LDS' }, two: { id: 'to', label: 'To', defaultValue: 'YRK' } },
    details: {
      one: { id: 'departs', label: 'Departs', defaultValue: '09:14' },
      two: { id: 'platform', label: 'Platform', defaultValue: '8' },
      three: { id: 'seat', label: 'Seat', defaultValue: '42A' },
    },
    back: { one: { id: 'conditions', label: 'Conditions', defaultValue: 'Valid on the 09:14 service only.' } },
  },
  barcode: { enabled: true, type: 'qr', source: 'custom', value: 'RAIL-LDS-YRK-0914' },
};
