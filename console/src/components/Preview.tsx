/**
 * The rendered preview of a pass or template (Apple front and back, Google), as the server draws
 * it in SVG: `POST /api/v1/pass-templates/preview` with a draft's create body, or
 * `GET /api/v1/pass-templates/{id}/preview` / `GET /api/v1/passes/{id}/preview`, with
 * `platform` and `side`. Fetched with the session's token and shown through an object URL (an
 * `<img>` cannot send the Authorization header; the CSP allows `blob:` images). A draft is sent
 * 400 ms after the last change. A server without these operations (404, 405) gets a note instead.
 */
import { useEffect, useId, useState } from 'react';
import { ApiError, fetchWithSession } from '../api.ts';

type Platform = 'apple' | 'google';
type Side = 'front' | 'back';

/**
 * What to draw. A pass's `version` (any string that changes with what its card shows: values,
 * points, latest message, status) makes the preview fetch again after a change.
 */
export type PreviewSource = { draft: unknown } | { templateId: string } | { passId: string; version?: string };

function request(source: PreviewSource, platform: Platform, side: Side): [string, RequestInit] {
  const query = `platform=${platform}&side=${side}`;
  const headers = { Accept: 'image/svg+xml' };
  if ('draft' in source) {
    return [
      `/api/v1/pass-templates/preview?${query}`,
      { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify({ passTemplate: source.draft }) },
    ];
  }
  if ('templateId' in source) return [`/api/v1/pass-templates/${encodeURIComponent(source.templateId)}/preview?${query}`, { headers }];
  return [`/api/v1/passes/${encodeURIComponent(source.passId)}/preview?${query}`, { headers }];
}

/** The X-Preview-Warnings codes (openapi/components/headers/PreviewWarnings.yaml), in words. */
const WARNING_WORDS: Record<string, string> = {
  value_truncated: 'A value is cut short on the card',
  image_missing: 'An image the card shows is missing',
  contrast_low: 'Text is hard to read on this background (contrast under 4.5:1)',
  fields_hidden: 'A field does not fit and is not shown',
  barcode_invalid: 'The barcode cannot encode its value',
  glyph_missing: 'Some characters have no font and show as boxes',
};

/**
 * Parses an X-Preview-Warnings value, a Structured Field list of tokens with a `pointer`
 * parameter (RFC 9651 §3.1), into `[code, pointer]` pairs.
 */
export function parsePreviewWarnings(header: string | null): [string, string][] {
  if (!header) return [];
  return header
    .split(',')
    .map((item) => /^\s*([a-z_][a-z0-9_*-]*)(?:.*?;\s*pointer="((?:[^"\\]|\\.)*)")?/.exec(item))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => [m[1]!, (m[2] ?? '').replace(/\\(.)/g, '$1')]);
}

export function Preview({ source }: { source: PreviewSource }) {
  const [platform, setPlatform] = useState<Platform>('apple');
  const [side, setSide] = useState<Side>('front');
  const [url, setUrl] = useState<string | null>(null);
  const [state, setState] = useState<'loading' | 'ready' | 'missing' | 'failed'>('loading');
  const [message, setMessage] = useState('');
  const [warnings, setWarnings] = useState<[string, string][]>([]);
  const key = JSON.stringify(source);
  const delay = 'draft' in source ? 400 : 0;
  const id = useId();
  useEffect(() => {
    const abort = new AbortController();
    let objectUrl: string | null = null;
    const timer = setTimeout(async () => {
      const [path, init] = request(JSON.parse(key) as PreviewSource, platform, side);
      try {
        const res = await fetchWithSession(path, { ...init, signal: abort.signal });
        setWarnings(parsePreviewWarnings(res.headers.get('X-Preview-Warnings')));
        objectUrl = URL.createObjectURL(await res.blob());
        setUrl(objectUrl);
        setState('ready');
      } catch (error) {
        if (abort.signal.aborted) return;
        if (error instanceof ApiError && (error.status === 404 || error.status === 405)) setState('missing');
        else {
          setState('failed');
          setMessage(error instanceof Error ? error.message : String(error));
        }
      }
    }, delay);
    return () => {
      clearTimeout(timer);
      abort.abort();
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [key, delay, platform, side]);
  return (
    <section className="preview card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Preview</h2>
      <div className="preview-controls">
        <fieldset className="segmented">
          <legend>Wallet</legend>
          {(['apple', 'google'] as const).map((p) => (
            <label key={p}>
              <input type="radio" name={`${id}-platform`} checked={platform === p} onChange={() => setPlatform(p)} /> {p === 'apple' ? 'Apple' : 'Google'}
            </label>
          ))}
        </fieldset>
        <fieldset className="segmented">
          <legend>Side</legend>
          {(['front', 'back'] as const).map((s) => (
            <label key={s}>
              <input type="radio" name={`${id}-side`} checked={side === s} onChange={() => setSide(s)} /> {s === 'front' ? 'Front' : 'Back'}
            </label>
          ))}
        </fieldset>
      </div>
      <div aria-live="polite" className="preview-stage">
        {state === 'missing' && <p className="muted">This server does not draw previews yet (no preview operation in its API).</p>}
        {state === 'failed' && <p className="field-error">No preview: {message}</p>}
        {state !== 'missing' && url && <img src={url} alt={`${platform === 'apple' ? 'Apple Wallet' : 'Google Wallet'} preview, ${side}`} data-state={state} />}
        {state === 'loading' && !url && <p className="muted">Drawing…</p>}
      </div>
      {warnings.length > 0 && (
        <ul className="warnings" aria-label="Preview warnings">
          {warnings.map(([code, pointer]) => (
            <li key={code + pointer}>
              {WARNING_WORDS[code] ?? code}
              {pointer && (
                <>
                  {' '}
                  (<code>{pointer}</code>)
                </>
              )}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
