/** Small building blocks of every page: headings, empty states, paging, confirmation, dates. */
import { type ReactNode, useEffect, useRef, useState } from 'react';

/** The page's heading, focused when the page opens so keyboard and screen-reader users start there. */
export function PageTitle({ children, actions }: { children: ReactNode; actions?: ReactNode }) {
  const ref = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    ref.current?.focus();
    document.title = `${ref.current?.textContent ?? ''} · Wallet Pass Service console`;
  }, []);
  return (
    <div className="page-title">
      <h1 tabIndex={-1} ref={ref}>
        {children}
      </h1>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}

/** What to do when a list is empty. */
export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p className="empty-title">{title}</p>
      {children && <div>{children}</div>}
    </div>
  );
}

/** Loading text announced politely. */
export function Loading({ what = 'Loading' }: { what?: string }) {
  return (
    <p className="muted" role="status">
      {what}…
    </p>
  );
}

/** Previous/next paging over a list's `meta`. */
export function Pager({ page, totalPages, onPage, label }: { page: number; totalPages: number; onPage: (page: number) => void; label: string }) {
  if (totalPages <= 1) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="secondary" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </button>
      <span>
        Page {page} of {totalPages}
      </span>
      <button type="button" className="secondary" disabled={page >= totalPages} onClick={() => onPage(page + 1)}>
        Next
      </button>
    </nav>
  );
}

/**
 * A button that asks before it acts, in a modal `<dialog>` (focus moves into it, Escape closes
 * it: https://developer.mozilla.org/en-US/docs/Web/HTML/Element/dialog).
 */
export function ConfirmButton({
  label,
  question,
  confirmLabel = label,
  danger,
  onConfirm,
}: {
  label: string;
  question: string;
  confirmLabel?: string;
  danger?: boolean;
  onConfirm: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [open, setOpen] = useState(false);
  useEffect(() => {
    if (open) ref.current?.showModal();
    else ref.current?.close();
  }, [open]);
  return (
    <>
      <button type="button" className={danger ? 'danger' : 'secondary'} onClick={() => setOpen(true)}>
        {label}
      </button>
      <dialog ref={ref} onClose={() => setOpen(false)} aria-label={label}>
        <p>{question}</p>
        <div className="actions">
          <button type="button" className="secondary" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button
            type="button"
            className={danger ? 'danger' : ''}
            onClick={() => {
              setOpen(false);
              onConfirm();
            }}
          >
            {confirmLabel}
          </button>
        </div>
      </dialog>
    </>
  );
}

/** A timestamp in the reader's locale, with the ISO value for machines. */
export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span className="muted">—</span>;
  return <time dateTime={at}>{new Date(at).toLocaleString()}</time>;
}

/** A status as a coloured badge (the text carries the meaning; colour only repeats it); `label` is its words when the value is an API enum. */
export function Badge({ value, label }: { value: string; label?: string }) {
  return <span className={`badge badge-${value}`}>{label ?? value}</span>;
}

/**
 * A secret or link the service shows once (a new API key, a webhook signing secret, an
 * invitation link), announced politely (`role="status"`), with a button that copies it.
 */
export function ShownOnce({ intro, value, copyLabel }: { intro: ReactNode; value: string; copyLabel: string }) {
  return (
    <div className="alert success" role="status">
      <p>{intro}</p>
      <code className="secret">{value}</code>
      <CopyButton text={value} label={copyLabel} />
    </div>
  );
}

/** A button that copies `text` to the clipboard (https://developer.mozilla.org/en-US/docs/Web/API/Clipboard/writeText) and says so. */
export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="secondary"
      onClick={() =>
        navigator.clipboard.writeText(text).then(
          () => setCopied(true),
          () => setCopied(false),
        )
      }
    >
      {copied ? 'Copied' : label}
    </button>
  );
}
