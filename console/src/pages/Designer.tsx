/**
 * The template designer: every member of the create body (createPassTemplate) — basics, colours,
 * images (a file becomes a `data:` URL), fields per section with their translations, barcode and
 * locations — with a live preview, and the template's processing status and errors once saved
 * (updatePassTemplate for an existing one). NFC is a property of passes (`PassInput.nfc`), not of
 * templates, so it is set when a pass is issued.
 *
 * Rendered for a phone's main thread (scripts/bench/consoleLighthouse.ts, Lighthouse's Total
 * Blocking Time): a saved template's form is drawn once, when the template has arrived (not first
 * blank and then again filled in); its preview is fetched at once, while the template loads (a
 * saved template not yet edited is previewed as stored); and the form's sections after Basics are
 * each drawn in a task of their own ({@link Later}), so that no single task draws all of its
 * hundred-odd controls.
 */
import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiError, ok, type Schemas } from '../api.ts';
import { useSession } from '../session.tsx';
import { Badge, PageTitle } from '../components/common.tsx';
import { ErrorScope, Field, FormErrors, SelectField } from '../components/forms.tsx';
import { Preview } from '../components/Preview.tsx';
import { navigate } from '../router.ts';
import { processingStatusOf } from './Templates.tsx';

type Draft = Schemas['PassTemplateCreate'];
type Section = 'header' | 'central' | 'details' | 'back';
type Slot = 'one' | 'two' | 'three' | 'four' | 'five';
type TemplateField = Schemas['TemplateField'];
type ImageName = 'logo' | 'icon' | 'banner';

const SECTIONS: [Section, string, Slot[]][] = [
  ['header', 'Header fields', ['one', 'two', 'three']],
  ['central', 'Central fields', ['one', 'two']],
  ['details', 'Details fields', ['one', 'two', 'three']],
  ['back', 'Back fields', ['one', 'two', 'three', 'four', 'five']],
];
const TYPES: Schemas['TemplateKind'][] = ['generic', 'loyalty', 'storeCard', 'eventTicket', 'transit', 'coupon', 'giftCard'];
const PREFERRED_BARCODES: Schemas['PreferredBarcodeType'][] = ['ean13', 'code39', 'codabar', 'itf'];
const REDEMPTION_CHANNELS: Schemas['PassTemplateOfferDetails']['redemptionChannel'][] = ['inStore', 'online', 'both', 'temporaryPriceReduction'];
const IMAGES: [ImageName, string][] = [
  ['logo', 'Logo'],
  ['icon', 'Icon'],
  ['banner', 'Banner (strip image)'],
];
const P = '/passTemplate';

const blank = (): Draft => ({
  name: '',
  templateType: 'loyalty',
  colors: { background: '#1A2B3C', label: '#F5D76E', text: '#FFFFFF' },
  fields: { header: { one: { id: 'points', label: 'Points', defaultValue: '0' } }, central: { one: { id: 'member', label: 'Member', defaultValue: 'Guest' } } },
  barcode: { enabled: true, type: 'qr', source: 'uuid' },
  locations: [],
});

/** Reads a file as a `data:` URL (https://developer.mozilla.org/en-US/docs/Web/API/FileReader/readAsDataURL). */
function dataUrlOf(file: File): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error);
    reader.readAsDataURL(file);
  });
}

/** The body to send: slots without id, label or value left out. */
function cleaned(draft: Draft): Draft {
  const fields: Record<string, Record<string, TemplateField>> = {};
  for (const [section, , slots] of SECTIONS) {
    for (const slot of slots) {
      const f = (draft.fields?.[section] as Record<string, TemplateField | null> | undefined)?.[slot];
      if (f && (f.id || f.label || f.defaultValue)) fields[section] = { ...fields[section], [slot]: f };
    }
  }
  return { ...draft, fields };
}

/**
 * The members of the create body (PassTemplateCreate in the contract, which allows no others).
 * The type checks below hold the list to the generated contract: a member that is not in it, or a
 * member of it left out, fails `npm run typecheck`.
 */
const CREATE_MEMBERS = [
  'name',
  'templateType',
  'defaultLanguage',
  'centralTitle',
  'applePassTypeIdentifier',
  'notificationHeader',
  'description',
  'colors',
  'images',
  'fields',
  'appLinking',
  'barcode',
  'locations',
  'beacons',
  'templateKind',
  'eventDetails',
  'offerDetails',
  'giftCardDetails',
] as const satisfies readonly (keyof Draft)[];
/** `true` only while every member of the create body is listed above. */
const CREATE_MEMBERS_COMPLETE: [Exclude<keyof Draft, (typeof CREATE_MEMBERS)[number]>] extends [never] ? true : never = true;
void CREATE_MEMBERS_COMPLETE;

/**
 * The body of `POST /api/v1/pass-templates/preview`: the create body (PassTemplateCreate), so a
 * loaded template's other members (`transitType`: a new transit template starts at `other`; the
 * processing status and its errors and warnings) are left out of the preview's draft.
 */
function previewDraft(draft: Draft): Draft {
  const body = cleaned(draft) as Record<string, unknown>;
  return Object.fromEntries(CREATE_MEMBERS.filter((member) => body[member] !== undefined).map((member) => [member, body[member]])) as Draft;
}

/** The members of the update body (PassTemplateUpdate) the designer edits; images go separately (only those replaced). */
const UPDATE_MEMBERS = CREATE_MEMBERS.filter(
  (member): member is Exclude<(typeof CREATE_MEMBERS)[number], 'applePassTypeIdentifier' | 'images'> =>
    member !== 'applePassTypeIdentifier' && member !== 'images',
);

/**
 * The PATCH body of an edit: the members of `body` whose value differs from the template as
 * loaded (all of them when nothing was loaded), so members the form did not touch — and members
 * it cannot show, such as `transitType` — are left as stored.
 */
function changedMembers(body: Draft, original: Draft | null): Schemas['PassTemplateUpdate'] {
  const changed: Record<string, unknown> = {};
  for (const member of UPDATE_MEMBERS) {
    if (body[member] === undefined) continue;
    if (original && JSON.stringify(body[member]) === JSON.stringify(original[member])) continue;
    changed[member] = body[member];
  }
  return changed as Schemas['PassTemplateUpdate'];
}

/** A processed template's `processingWarnings` (contract PassTemplateProcessingWarning), if any. */
function warningsOf(template: Schemas['PassTemplate'] | undefined): Schemas['PassTemplateProcessingWarning'][] {
  const warnings = (template?.attributes as { processingWarnings?: Schemas['PassTemplateProcessingWarning'][] } | undefined)?.processingWarnings;
  return warnings ?? [];
}

/**
 * A save's error with the API's 413 for the images (`/passTemplate/images`: the body over the
 * server's limit) placed at each image field that was sent, naming the file and its size.
 */
function atImageFields(error: unknown, sent: ImageName[], files: Partial<Record<ImageName, { name: string; size: number }>>): unknown {
  if (!(error instanceof ApiError) || error.status !== 413 || !sent.length) return error;
  const detail = error.at(`${P}/images`);
  if (!detail) return error;
  const megabytes = (bytes: number) => `${(bytes / 1024 / 1024).toLocaleString(undefined, { maximumFractionDigits: 1 })} MB`;
  return new ApiError(
    413,
    sent.map((name) => ({
      status: '413',
      detail: `${files[name] ? `${files[name].name} has ${megabytes(files[name].size)}. ` : ''}${detail}`,
      source: { pointer: `${P}/images/${name}` },
    })),
  );
}

/**
 * Its children drawn in a task after the page's first render (a `setTimeout` each, started once
 * the first render is painted): every `Later` is its own task, so the form's sections are drawn
 * one by one instead of in one long task. Until then a box of about a section's height stands in
 * its place (hidden from assistive technology), so that the sections appearing below shift
 * nothing in view.
 */
function Later({ children }: { children: ReactNode }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setShown(true), 0);
    return () => clearTimeout(timer);
  }, []);
  return shown ? children : <div className="later-placeholder" aria-hidden="true" />;
}

function Fieldset({ legend, children }: { legend: string; children: ReactNode }) {
  return (
    <fieldset className="card">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

/**
 * The members of the chosen kind (the contract's TemplateKind): the event of an event ticket
 * (poster event tickets on iOS 18, Google's venue and dates), the offer of a coupon (Google's
 * redemption channel, validity) and the currency of a gift card. Dates are RFC 3339 text.
 */
function KindDetails({ draft, set }: { draft: Draft; set: (change: Partial<Draft>) => void }) {
  const text = (value: string) => value || undefined;
  if (draft.templateType === 'eventTicket') {
    const event = draft.eventDetails ?? { venueName: '', startsAt: '' };
    const setEvent = (change: Partial<Schemas['PassTemplateEventDetails']>) => set({ eventDetails: { ...event, ...change } });
    return (
      <fieldset className="kind-details" aria-label="Event">
        <legend>Event (poster event ticket)</legend>
        <Field label="Venue" pointer={`${P}/eventDetails/venueName`} value={event.venueName} onChange={(e) => setEvent({ venueName: e.target.value })} />
        <Field
          label="Venue address"
          pointer={`${P}/eventDetails/venueAddress`}
          value={event.venueAddress ?? ''}
          onChange={(e) => setEvent({ venueAddress: text(e.target.value) })}
        />
        <Field
          label="Starts at"
          pointer={`${P}/eventDetails/startsAt`}
          placeholder="2027-03-01T19:30:00Z"
          value={event.startsAt}
          onChange={(e) => setEvent({ startsAt: e.target.value })}
        />
        <Field label="Ends at" pointer={`${P}/eventDetails/endsAt`} value={event.endsAt ?? ''} onChange={(e) => setEvent({ endsAt: text(e.target.value) })} />
        <Field
          label="Performers"
          pointer={`${P}/eventDetails/performerNames`}
          hint="Separated by commas."
          value={(event.performerNames ?? []).join(', ')}
          onChange={(e) => {
            const names = e.target.value
              .split(',')
              .map((n) => n.trim())
              .filter(Boolean);
            setEvent({ performerNames: names.length ? names : undefined });
          }}
        />
      </fieldset>
    );
  }
  if (draft.templateType === 'coupon') {
    const offer = draft.offerDetails ?? { redemptionChannel: 'both' as const };
    const setOffer = (change: Partial<Schemas['PassTemplateOfferDetails']>) => set({ offerDetails: { ...offer, ...change } });
    return (
      <fieldset className="kind-details" aria-label="Offer">
        <legend>Offer</legend>
        <SelectField
          label="Redemption channel"
          pointer={`${P}/offerDetails/redemptionChannel`}
          value={offer.redemptionChannel}
          onChange={(e) => setOffer({ redemptionChannel: e.target.value as Schemas['PassTemplateOfferDetails']['redemptionChannel'] })}
        >
          {REDEMPTION_CHANNELS.map((c) => (
            <option key={c}>{c}</option>
          ))}
        </SelectField>
        <Field
          label="Provider"
          pointer={`${P}/offerDetails/provider`}
          value={offer.provider ?? ''}
          onChange={(e) => setOffer({ provider: text(e.target.value) })}
        />
        <Field
          label="Valid from"
          pointer={`${P}/offerDetails/validFrom`}
          value={offer.validFrom ?? ''}
          onChange={(e) => setOffer({ validFrom: text(e.target.value) })}
        />
        <Field
          label="Valid until"
          pointer={`${P}/offerDetails/validUntil`}
          value={offer.validUntil ?? ''}
          onChange={(e) => setOffer({ validUntil: text(e.target.value) })}
        />
      </fieldset>
    );
  }
  if (draft.templateType === 'giftCard') {
    return (
      <fieldset className="kind-details" aria-label="Gift card">
        <legend>Gift card</legend>
        <Field
          label="Currency"
          pointer={`${P}/giftCardDetails/currency`}
          hint="ISO 4217, e.g. EUR; balances count its minor unit (cents). The field with id points shows the balance."
          value={draft.giftCardDetails?.currency ?? ''}
          onChange={(e) => set({ giftCardDetails: e.target.value ? { currency: e.target.value.toUpperCase() } : null })}
        />
      </fieldset>
    );
  }
  return null;
}

export default function Designer({ id }: { id: string | null }) {
  const queryClient = useQueryClient();
  const canWrite = useSession().can('templates:write');
  const [draft, setDraft] = useState<Draft>(blank);
  const [changedImages, setChangedImages] = useState<ImageName[]>([]);
  // The files chosen for images, to name them in errors.
  const [imageFiles, setImageFiles] = useState<Partial<Record<ImageName, { name: string; size: number }>>>({});
  // The template as loaded (cleaned), to send only the members that changed (PATCH semantics: absent members stay).
  const [original, setOriginal] = useState<Draft | null>(null);
  const [language, setLanguage] = useState('de');
  const template = useQuery({
    queryKey: ['template', id],
    enabled: id !== null,
    queryFn: () => ok(api.GET('/api/v1/pass-templates/{id}', { params: { path: { id: id! } } })),
    refetchInterval: (q) => (q.state.data && processingStatusOf(q.state.data.data) === 'processing' ? 1000 : false),
  });
  const loaded = template.data?.data;
  // Fills the form once, when the processed template arrives (not on every refetch, which would undo edits).
  // biome-ignore lint/correctness/useExhaustiveDependencies: keyed on the template's id and status on purpose
  useEffect(() => {
    if (loaded && processingStatusOf(loaded) === 'processed') {
      const { images: _images, ...rest } = loaded.attributes as Schemas['PassTemplateAttributes'];
      // The kind (templateKind) is what the form edits as the type; responses keep templateType within its first five values.
      const { templateKind, ...attributes } = rest;
      const next = {
        ...draft,
        ...(attributes as Draft),
        templateType: templateKind ?? attributes.templateType ?? draft.templateType,
        images: (loaded.attributes as Schemas['PassTemplateAttributes']).images,
      };
      setDraft(next);
      setOriginal(cleaned(next));
    }
  }, [loaded?.id, loaded && processingStatusOf(loaded)]);

  const save = useMutation({
    mutationFn: async () => {
      try {
        return await saveDraft();
      } catch (error) {
        throw atImageFields(error, id === null ? (Object.keys(imageFiles) as ImageName[]) : changedImages, imageFiles);
      }
    },
    onSuccess: (saved) => {
      setOriginal(cleaned(draft));
      queryClient.invalidateQueries({ queryKey: ['templates'] });
      queryClient.invalidateQueries({ queryKey: ['template', saved] });
      setChangedImages([]);
      if (id === null) navigate(`/templates/${saved}`);
    },
  });
  /** Creates the template, or sends the members changed since it was loaded (and the images replaced). */
  async function saveDraft(): Promise<string> {
    const body = cleaned(draft);
    if (id === null) return (await ok(api.POST('/api/v1/pass-templates', { body: { passTemplate: body } }))).id;
    const { images } = body;
    const changed = Object.fromEntries(changedImages.map((name) => [name, images?.[name] ?? null]));
    await ok(
      api.PATCH('/api/v1/pass-templates/{id}', {
        params: { path: { id } },
        body: { passTemplate: { ...changedMembers(body, original), ...(changedImages.length ? { images: changed } : {}) } },
      }),
    );
    return id;
  }

  const set = (change: Partial<Draft>) => setDraft((d) => ({ ...d, ...change }));
  const setField = (section: Section, slot: Slot, change: Partial<TemplateField>) =>
    setDraft((d) => {
      const area = { ...((d.fields?.[section] as Record<string, TemplateField | null>) ?? {}) };
      area[slot] = { ...(area[slot] ?? {}), ...change };
      return { ...d, fields: { ...d.fields, [section]: area } };
    });
  const setImage = async (name: ImageName, file: File | undefined) => {
    if (!file) return;
    const url = await dataUrlOf(file);
    setDraft((d) => ({ ...d, images: { ...d.images, [name]: url } }));
    setImageFiles((files) => ({ ...files, [name]: { name: file.name, size: file.size } }));
    setChangedImages((names) => [...new Set([...names, name])]);
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const status = loaded ? processingStatusOf(loaded) : null;
  // A saved template whose form is not filled in yet: it is loading, or it is processed and the effect above has not run.
  const filling = id !== null && (template.isPending || (status === 'processed' && original === null));
  // A saved, processed template not yet edited is previewed as stored (GET, cached by ETag, at once —
  // already while it loads, as most templates opened are processed); once edited, as the draft (POST,
  // 400 ms after the last change).
  const untouched =
    id !== null && status === 'processed' && original !== null && changedImages.length === 0 && JSON.stringify(cleaned(draft)) === JSON.stringify(original);
  const previewSource = id !== null && (filling || untouched) ? { templateId: id } : { draft: previewDraft(draft) };
  const locations = draft.locations ?? [];

  return (
    <>
      <PageTitle>{id === null ? 'New template' : (loaded?.attributes.name ?? 'Template')}</PageTitle>
      {/* A saved template's status line holds its place while the template loads: nothing below it moves when it arrives. */}
      {id !== null && (
        <div className="card status-line" role="status">
          {status ? (
            <>
              Processing status: <Badge value={status} />
            </>
          ) : (
            'Loading the template…'
          )}
          {warningsOf(loaded).length > 0 && (
            <ul className="warnings" aria-label="Processing warnings">
              {warningsOf(loaded).map((w) => (
                <li key={w.pointer + w.code}>
                  <code>{w.pointer}</code>: {w.detail}
                </li>
              ))}
            </ul>
          )}
          {status === 'failed' && (
            <ul className="field-error">
              {(loaded!.attributes as Schemas['FailedPassTemplateAttributes']).processingErrors.map((e) => (
                <li key={e.pointer + e.code}>
                  <code>{e.pointer}</code>: {e.detail}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <div className="designer">
        {filling ? (
          <div className="designer-form" />
        ) : (
          <form onSubmit={submit} className="designer-form" aria-label="Template design">
            <ErrorScope error={save.error}>
              <FormErrors error={save.error} shown={IMAGES.map(([name]) => `${P}/images/${name}`)} />
              <Fieldset legend="Basics">
                <Field label="Name" pointer={`${P}/name`} required value={draft.name} onChange={(e) => set({ name: e.target.value })} />
                <SelectField
                  label="Type"
                  pointer={`${P}/templateType`}
                  value={draft.templateType}
                  onChange={(e) =>
                    // Another kind's own members go (the server drops them too when a template changes kind).
                    set({ templateType: e.target.value as Draft['templateType'], eventDetails: undefined, offerDetails: undefined, giftCardDetails: undefined })
                  }
                >
                  {TYPES.map((t) => (
                    <option key={t}>{t}</option>
                  ))}
                </SelectField>
                <KindDetails draft={draft} set={set} />
                <Field
                  label="Central title"
                  pointer={`${P}/centralTitle`}
                  value={draft.centralTitle ?? ''}
                  onChange={(e) => set({ centralTitle: e.target.value || null })}
                />
                <Field
                  label="Description"
                  pointer={`${P}/description`}
                  value={draft.description ?? ''}
                  onChange={(e) => set({ description: e.target.value || null })}
                />
                <Field
                  label="Notification header"
                  pointer={`${P}/notificationHeader`}
                  value={draft.notificationHeader ?? ''}
                  onChange={(e) => set({ notificationHeader: e.target.value || null })}
                />
                <Field
                  label="Default language"
                  pointer={`${P}/defaultLanguage`}
                  value={draft.defaultLanguage ?? ''}
                  placeholder="en"
                  onChange={(e) => set({ defaultLanguage: (e.target.value || undefined) as Draft['defaultLanguage'] })}
                />
              </Fieldset>
              <Later>
                <Fieldset legend="Colours">
                  {(['background', 'label', 'text'] as const).map((c) => (
                    <Field
                      key={c}
                      label={`${c[0]!.toUpperCase()}${c.slice(1)} colour`}
                      pointer={`${P}/colors/${c}`}
                      type="color"
                      value={draft.colors?.[c] ?? '#000000'}
                      onChange={(e) => set({ colors: { ...draft.colors, [c]: e.target.value.toUpperCase() } })}
                    />
                  ))}
                </Fieldset>
              </Later>
              <Later>
                <Fieldset legend="Images">
                  {IMAGES.map(([name, label]) => (
                    <div key={name} className="image-field">
                      <Field
                        label={label}
                        pointer={`${P}/images/${name}`}
                        type="file"
                        accept="image/png"
                        hint="PNG; sent inside the template as a data: URL."
                        onChange={(e) => setImage(name, e.target.files?.[0])}
                      />
                      {draft.images?.[name] && <img className="thumb" src={draft.images[name]!} alt={`${label} as uploaded`} />}
                    </div>
                  ))}
                </Fieldset>
              </Later>
              {SECTIONS.map(([section, legend, slots]) => (
                <Later key={section}>
                  <Fieldset legend={legend}>
                    {slots.map((slot) => {
                      const f = (draft.fields?.[section] as Record<string, TemplateField | null> | undefined)?.[slot] ?? {};
                      const at = `${P}/fields/${section}/${slot}`;
                      return (
                        <fieldset key={slot} className="slot">
                          <legend className="visually-hidden">{`${legend}, slot ${slot}`}</legend>
                          <Field
                            label={`Slot ${slot}: id`}
                            pointer={`${at}/id`}
                            value={f.id ?? ''}
                            onChange={(e) => setField(section, slot, { id: e.target.value })}
                          />
                          <Field
                            label="Label"
                            pointer={`${at}/label`}
                            value={f.label ?? ''}
                            onChange={(e) => setField(section, slot, { label: e.target.value })}
                          />
                          <Field
                            label="Default value"
                            pointer={`${at}/defaultValue`}
                            value={f.defaultValue ?? ''}
                            onChange={(e) => setField(section, slot, { defaultValue: e.target.value })}
                          />
                        </fieldset>
                      );
                    })}
                  </Fieldset>
                </Later>
              ))}
              <Later>
                <Fieldset legend="Localisations">
                  <Field label="Language (ISO 639-1)" value={language} maxLength={2} onChange={(e) => setLanguage(e.target.value.toLowerCase())} />
                  {SECTIONS.flatMap(([section, legend, slots]) =>
                    slots.map((slot) => {
                      const f = (draft.fields?.[section] as Record<string, TemplateField | null> | undefined)?.[slot];
                      if (!f?.id) return null;
                      const translation = f.localisation?.[language] ?? {};
                      return (
                        <Field
                          key={`${section}-${slot}`}
                          label={`${legend.replace(' fields', '')} “${f.label ?? f.id}” label in ${language}`}
                          pointer={`${P}/fields/${section}/${slot}/localisation/${language}/label`}
                          value={translation.label ?? ''}
                          onChange={(e) =>
                            setField(section, slot, {
                              localisation: { ...f.localisation, [language]: e.target.value ? { ...translation, label: e.target.value } : null },
                            })
                          }
                        />
                      );
                    }),
                  )}
                </Fieldset>
              </Later>
              <Later>
                <Fieldset legend="Barcode">
                  <label className="check">
                    <input
                      type="checkbox"
                      checked={draft.barcode?.enabled ?? false}
                      onChange={(e) => set({ barcode: { ...draft.barcode, enabled: e.target.checked } })}
                    />{' '}
                    Show a barcode
                  </label>
                  <SelectField
                    label="Symbology"
                    pointer={`${P}/barcode/type`}
                    value={draft.barcode?.type ?? 'qr'}
                    onChange={(e) => set({ barcode: { ...draft.barcode, type: e.target.value as Schemas['BarcodeType'] } })}
                  >
                    {['qr', 'code128', 'aztec', 'pdf417'].map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </SelectField>
                  <SelectField
                    label="Preferred symbology (iOS 27, Google)"
                    pointer={`${P}/barcode/preferredType`}
                    hint="Shown where the wallet can; older iPhones show the type above. EAN-13 and ITF take digits only."
                    value={draft.barcode?.preferredType ?? ''}
                    onChange={(e) =>
                      set({ barcode: { ...draft.barcode, preferredType: (e.target.value || null) as Schemas['PassTemplateBarcode']['preferredType'] } })
                    }
                  >
                    <option value="">none</option>
                    {PREFERRED_BARCODES.map((t) => (
                      <option key={t}>{t}</option>
                    ))}
                  </SelectField>
                  <SelectField
                    label="Value from"
                    pointer={`${P}/barcode/source`}
                    value={draft.barcode?.source ?? 'uuid'}
                    onChange={(e) => set({ barcode: { ...draft.barcode, source: e.target.value as Schemas['PassIdentifierSource'] } })}
                  >
                    <option value="uuid">The pass's UUID</option>
                    <option value="extId">The pass's extId</option>
                    <option value="custom">A fixed value</option>
                  </SelectField>
                  {draft.barcode?.source === 'custom' && (
                    <Field
                      label="Value"
                      pointer={`${P}/barcode/value`}
                      value={draft.barcode.value ?? ''}
                      onChange={(e) => set({ barcode: { ...draft.barcode, value: e.target.value } })}
                    />
                  )}
                </Fieldset>
              </Later>
              <Later>
                <Fieldset legend="Locations">
                  {locations.length === 0 && <p className="muted">No location. Add one to show the pass on the lock screen near a shop.</p>}
                  {locations.map((loc, i) => {
                    const put = (change: Partial<Schemas['PassTemplateLocation']>) =>
                      set({ locations: locations.map((l, j) => (j === i ? { ...l, ...change } : l)) });
                    return (
                      // biome-ignore lint/suspicious/noArrayIndexKey: locations have no identity but their place
                      <fieldset key={i} className="slot">
                        <legend className="visually-hidden">{`Location ${i + 1}`}</legend>
                        <Field
                          label={`Location ${i + 1}: name`}
                          pointer={`${P}/locations/${i}/name`}
                          value={loc.name ?? ''}
                          onChange={(e) => put({ name: e.target.value })}
                        />
                        <Field
                          label="Latitude"
                          pointer={`${P}/locations/${i}/latitude`}
                          type="number"
                          step="any"
                          value={loc.latitude}
                          onChange={(e) => put({ latitude: Number(e.target.value) })}
                        />
                        <Field
                          label="Longitude"
                          pointer={`${P}/locations/${i}/longitude`}
                          type="number"
                          step="any"
                          value={loc.longitude}
                          onChange={(e) => put({ longitude: Number(e.target.value) })}
                        />
                        <Field
                          label="Message"
                          pointer={`${P}/locations/${i}/message`}
                          value={loc.message ?? ''}
                          onChange={(e) => put({ message: e.target.value })}
                        />
                        <button type="button" className="secondary" onClick={() => set({ locations: locations.filter((_, j) => j !== i) })}>
                          Remove location {i + 1}
                        </button>
                      </fieldset>
                    );
                  })}
                  <button type="button" className="secondary" onClick={() => set({ locations: [...locations, { latitude: 51.5, longitude: -0.12 }] })}>
                    Add a location
                  </button>
                </Fieldset>
              </Later>
              <div className="sticky-actions">
                {canWrite && (
                  <button type="submit" disabled={save.isPending}>
                    {save.isPending ? 'Saving…' : id === null ? 'Create template' : 'Save changes'}
                  </button>
                )}
                {save.isSuccess && <span role="status">Saved; the template is being processed.</span>}
              </div>
            </ErrorScope>
          </form>
        )}
        <aside className="designer-preview">
          <Preview source={previewSource} />
        </aside>
      </div>
    </>
  );
}
