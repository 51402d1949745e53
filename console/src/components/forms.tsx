/**
 * Form pieces that show the API's errors where they belong: each field names the JSON pointer of
 * its member in the request body (`/passTemplate/colors/background`), and the `detail` of the
 * error whose `source.pointer` is that pointer appears under it, tied with `aria-describedby`
 * and `aria-invalid` (WCAG 3.3.1, https://www.w3.org/WAI/WCAG22/Understanding/error-identification).
 * Errors that name no field of the form are listed above it, in an alert.
 */
import { createContext, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes, useContext, useId } from 'react';
import { ApiError } from '../api.ts';

const ErrorContext = createContext<ApiError | null>(null);

/** Gives the fields inside the error of the form's last submission. */
export function ErrorScope({ error, children }: { error: unknown; children: ReactNode }) {
  return <ErrorContext.Provider value={error instanceof ApiError ? error : null}>{children}</ErrorContext.Provider>;
}

interface FieldProps {
  label: string;
  /** The JSON pointer (or query parameter name) of what this field sends. */
  pointer?: string;
  hint?: string;
}

function useFieldError(pointer?: string): string | undefined {
  const error = useContext(ErrorContext);
  return pointer && error ? error.at(pointer) : undefined;
}

function Described({ id, hint, error }: { id: string; hint?: string; error?: string }) {
  return (
    <>
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <span className="field-error" id={`${id}-error`}>
          {error}
        </span>
      )}
    </>
  );
}

function describedBy(id: string, hint?: string, error?: string): string | undefined {
  return [hint && `${id}-hint`, error && `${id}-error`].filter(Boolean).join(' ') || undefined;
}

/** A labelled input. */
export function Field({ label, pointer, hint, ...input }: FieldProps & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  const error = useFieldError(pointer);
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...input} />
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}

/** A labelled select. */
export function SelectField({ label, pointer, hint, children, ...select }: FieldProps & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = useId();
  const error = useFieldError(pointer);
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...select}>
        {children}
      </select>
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}

/** A labelled text area. */
export function TextField({ label, pointer, hint, ...area }: FieldProps & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = useId();
  const error = useFieldError(pointer);
  return (
    <div className={`field${error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy(id, hint, error)} {...area} />
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}

/**
 * The errors of a failed call that no field shows (`shown` lists the pointers the form has
 * fields for), or any other failure's message.
 */
export function FormErrors({ error, shown = [] }: { error: unknown; shown?: string[] }) {
  if (!error) return null;
  const items =
    error instanceof ApiError
      ? error.errors.filter((e) => !shown.includes(e.source?.pointer ?? e.source?.parameter ?? '\0')).map((e) => e.detail ?? e.title ?? `HTTP ${error.status}`)
      : [String((error as Error).message ?? error)];
  if (!items.length) return null;
  return (
    <div className="alert" role="alert">
      {items.length === 1 ? (
        <p>{items[0]}</p>
      ) : (
        <ul>
          {items.map((item) => (
            <li key={item}>{item}</li>
          ))}
        </ul>
      )}
    </div>
  );
}
