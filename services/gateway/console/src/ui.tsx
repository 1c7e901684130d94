import {
  cloneElement,
  isValidElement,
  toChildArray,
  type ComponentChildren,
  type JSX,
  type VNode,
} from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ErrorDetail } from './api';

export function PageHeader(props: {
  title: string;
  description?: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <header class="page-header">
      <div>
        <h1>{props.title}</h1>
        {props.description && <p class="page-description">{props.description}</p>}
      </div>
      {props.actions && <div class="page-actions">{props.actions}</div>}
    </header>
  );
}

export function Card(props: {
  title?: ComponentChildren;
  subtitle?: ComponentChildren;
  actions?: ComponentChildren;
  children: ComponentChildren;
  class?: string;
  id?: string;
}) {
  const headingId = props.id ? `${props.id}-title` : undefined;
  return (
    <section class={`card ${props.class ?? ''}`} aria-labelledby={headingId} id={props.id}>
      {(props.title || props.actions) && (
        <div class="card-header">
          <div>
            {props.title && <h2 id={headingId}>{props.title}</h2>}
            {props.subtitle && <p class="card-subtitle">{props.subtitle}</p>}
          </div>
          {props.actions && <div class="card-actions">{props.actions}</div>}
        </div>
      )}
      {props.children}
    </section>
  );
}

export function Stat(props: {
  label: string;
  value: ComponentChildren;
  hint?: ComponentChildren;
  tone?: 'default' | 'warn' | 'danger';
}) {
  return (
    <div class={`stat stat-${props.tone ?? 'default'}`}>
      <div class="stat-label">{props.label}</div>
      <div class="stat-value">{props.value}</div>
      {props.hint && <div class="stat-hint">{props.hint}</div>}
    </div>
  );
}

export type Tone = 'green' | 'red' | 'amber' | 'gray' | 'blue';

export function Badge(props: { tone: Tone; children: ComponentChildren }) {
  return <span class={`badge badge-${props.tone}`}>{props.children}</span>;
}

type ButtonProps = JSX.HTMLAttributes<HTMLButtonElement> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  size?: 'sm' | 'md';
  busy?: boolean;
  disabled?: boolean;
  type?: 'button' | 'submit';
  form?: string;
};

export function Button({ variant = 'secondary', size = 'md', busy, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      {...rest}
      class={`btn btn-${variant} btn-${size} ${rest.class ?? ''}`}
      disabled={rest.disabled || busy}
      aria-busy={busy ? 'true' : undefined}
    />
  );
}

export function CopyButton(props: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      size="sm"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(props.text);
        } catch {
          // Clipboard refused (no permission): select the text instead so it can be copied by hand.
          const range = document.createRange();
          const target = document.activeElement?.parentElement?.querySelector('code');
          if (target) {
            range.selectNodeContents(target);
            getSelection()?.removeAllRanges();
            getSelection()?.addRange(range);
          }
        }
        setCopied(true);
        setTimeout(() => setCopied(false), 1500);
      }}
    >
      {copied ? 'Copied' : (props.label ?? 'Copy')}
    </Button>
  );
}

/** A credential shown once: the value, a copy button and the warning that it will not be shown again. */
export function SecretOnce(props: { label: string; value: string }) {
  return (
    <div class="secret-once" role="group" aria-label={props.label}>
      <div class="secret-once-label">{props.label}</div>
      <div class="secret-once-row">
        <code class="secret-value" data-testid="secret-value">
          {props.value}
        </code>
        <CopyButton text={props.value} />
      </div>
      <p class="secret-once-warning">
        Store it now: it is shown only this once and cannot be read again.
      </p>
    </div>
  );
}

/** A modal on the native dialog element: focus is trapped, Escape closes it. */
export function Modal(props: {
  title: string;
  open: boolean;
  onClose: () => void;
  children: ComponentChildren;
  footer?: ComponentChildren;
  wide?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      class={`modal ${props.wide ? 'modal-wide' : ''}`}
      aria-labelledby="modal-title"
      onClose={props.onClose}
      onCancel={(event) => {
        event.preventDefault();
        props.onClose();
      }}
    >
      {props.open && (
        <>
          <div class="modal-header">
            <h2 id="modal-title">{props.title}</h2>
            <button type="button" class="icon-btn" aria-label="Close" onClick={props.onClose}>
              ×
            </button>
          </div>
          <div class="modal-body">{props.children}</div>
          {props.footer && <div class="modal-footer">{props.footer}</div>}
        </>
      )}
    </dialog>
  );
}

export function ErrorNotice(props: { error: unknown; title?: string }) {
  if (!props.error) return null;
  const error = props.error;
  const apiError = error instanceof ApiError ? error : undefined;
  return (
    <div class="notice notice-error" role="alert">
      <strong>{props.title ?? 'The request failed'}</strong>
      <span>
        {apiError ? `${apiError.status} ${apiError.code}: ` : ''}
        {error instanceof Error ? error.message : String(error)}
      </span>
      {apiError && apiError.details.length > 0 && (
        <ul>
          {apiError.details.map((d) => (
            <li key={d.field + d.reason}>
              <code>{d.field || '(body)'}</code> {d.reason}
            </li>
          ))}
        </ul>
      )}
      {apiError?.requestId && <span class="muted small">request {apiError.requestId}</span>}
    </div>
  );
}

export function EmptyState(props: { title: string; children?: ComponentChildren }) {
  return (
    <div class="empty">
      <div class="empty-title">{props.title}</div>
      {props.children && <div class="empty-body">{props.children}</div>}
    </div>
  );
}

export function Loading(props: { label?: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {props.label ?? 'Loading…'}
    </div>
  );
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Loads once per change of deps; reload() loads again (after a change the page made). */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[] = []): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({
    loading: true,
  });
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => live && setState({ data, loading: false }),
      (error: unknown) => live && setState((s) => ({ data: s.data, error, loading: false })),
    );
    return () => {
      live = false;
    };
  }, [...deps, generation]);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}

/** A list the API pages newest first: the items of one page and the next page's cursor. */
export interface ListPage<T> {
  items: T[];
  next: string | null;
}

export interface PagedList<T> {
  items: T[];
  /** Whether an older page exists. */
  more: boolean;
  page: Loaded<ListPage<T>>;
  /** Loads the next page below what is shown. */
  showMore: () => void;
  /** From the first page again (after a change of filter, or to see what is new). */
  restart: () => void;
}

/**
 * A list read a page at a time: load(cursor) reads one page ('' the first); the first page
 * replaces what is shown, a later one (showMore) is added below it. deps: what the list depends
 * on (its filters): a change reads the first page again.
 */
export function usePagedList<T>(
  load: (cursor: string) => Promise<ListPage<T>>,
  deps: unknown[],
): PagedList<T> {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  // The cursor belongs to the deps it was read under: other deps start from the first page.
  const depsKey = JSON.stringify(deps);
  const [cursor, setCursor] = useState({ deps: depsKey, value: '' });
  const [generation, setGeneration] = useState(0);
  const current = cursor.deps === depsKey ? cursor.value : '';
  const page = useLoad(() => load(current), [depsKey, current, generation]);
  useEffect(() => {
    if (!page.data) return;
    setItems((shown) => (current ? [...shown, ...page.data!.items] : page.data!.items));
    setNext(page.data.next);
  }, [page.data]);
  return {
    items,
    more: next !== null,
    page,
    showMore: () => next && setCursor({ deps: depsKey, value: next }),
    restart: () => {
      setCursor({ deps: depsKey, value: '' });
      setGeneration((g) => g + 1);
    },
  };
}

/** The button that adds a paged list's next page below it, while there is one. */
export function ShowMore(props: { list: PagedList<unknown>; label: string }) {
  if (!props.list.more) return null;
  return (
    <div class="load-more">
      <Button busy={props.list.page.loading} onClick={props.list.showMore}>
        {props.label}
      </Button>
    </div>
  );
}

export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: ComponentChildren;
  id: string;
}) {
  const described = props.error ? `${props.id}-error` : props.hint ? `${props.id}-hint` : undefined;
  // The control (the first child; a datalist may follow) is told it is invalid, and what its
  // hint or error says.
  const [first, ...rest] = toChildArray(props.children);
  const control = isValidElement(first)
    ? cloneElement(first as VNode<Record<string, unknown>>, {
        'aria-invalid': props.error ? 'true' : undefined,
        'aria-describedby': described,
      })
    : first;
  return (
    <div class={`field ${props.error ? 'field-invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {control}
      {rest}
      {props.hint && !props.error && (
        <div class="field-hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div class="field-error" id={`${props.id}-error`}>
          {props.error}
        </div>
      )}
    </div>
  );
}

/** A group of checkboxes (or other controls) with one legend and one error, which names the group. */
export function FieldSet(props: {
  id: string;
  legend: ComponentChildren;
  error?: string;
  hint?: ComponentChildren;
  class?: string;
  children: ComponentChildren;
}) {
  return (
    <fieldset
      id={props.id}
      class={`${props.class ?? 'checks'} ${props.error ? 'field-invalid' : ''}`}
      aria-describedby={
        props.error ? `${props.id}-error` : props.hint ? `${props.id}-hint` : undefined
      }
    >
      <legend>{props.legend}</legend>
      {props.children}
      {props.hint && !props.error && (
        <div class="field-hint full-row" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div class="field-error full-row" id={`${props.id}-error`}>
          {props.error}
        </div>
      )}
    </fieldset>
  );
}

/** A check of one field's value: the message to show, or '' when the value is fine. */
export type FieldRule = (value: string) => string;

/**
 * A JSON-schema pattern as a check. The browser compiles a `pattern` attribute with the `v` flag,
 * under which some ECMAScript patterns the API's schemas use (a `-` at the end of a class) do not
 * compile; ajv compiles them with `u`, as this does.
 */
export function patternRule(pattern: string, words: string): FieldRule {
  const compiled = new RegExp(pattern, 'u');
  return (value) => (value === '' || compiled.test(value) ? '' : words);
}

/** A JSON text field's check: '' when it holds an object (or is empty, unless words.missing says why not). */
export function jsonObjectRule(words: { missing?: string; notObject: string }): FieldRule {
  return (text) => {
    if (!text.trim()) return words.missing ?? '';
    try {
      const value: unknown = JSON.parse(text);
      return value && typeof value === 'object' && !Array.isArray(value) ? '' : words.notObject;
    } catch (error) {
      return `This is not JSON: ${(error as Error).message}`;
    }
  };
}

/** Maps an API error detail's JSON pointer (`/model`, `/steps/0/title`) to the id of the field showing it. */
export type FieldOf = (pointer: string) => string | undefined;

export interface FormState {
  busy: boolean;
  /** The message at each field, by the field's element id. */
  errors: Record<string, string>;
  /** The error of the last submission (an API refusal, or a failure of the network). */
  error: unknown;
  /** The refusal's details that no field of the form shows (listed in the form's notice). */
  unplaced: ErrorDetail[];
  /** The form's onSubmit: checks the fields, then runs the work; errors go to their fields. */
  onSubmit: (event: Event) => void;
  reset: () => void;
}

/** The first control at or inside an element (a fieldset's first checkbox). */
function focusTarget(element: Element | null): HTMLElement | null {
  if (!element) return null;
  if (element.matches('input, select, textarea, button, [tabindex]')) return element as HTMLElement;
  return element.querySelector<HTMLElement>('input, select, textarea, button');
}

/**
 * A form whose errors are shown at their fields, in words, with focus moved to the first: the
 * browser's own checks (required, type, min and max, read from each control's validity) and the
 * rules by field id before anything is sent, then the API's refusal, each detail at the field
 * fieldOf names. Forms using it set noValidate (their messages replace the browser's bubbles).
 */
export function useForm(
  work: (form: HTMLFormElement) => Promise<void>,
  options: {
    fieldOf?: FieldOf;
    rules?: Record<string, FieldRule>;
    /** The words shown for a detail at its field, when the API's differ from the form's (units). */
    describe?: (detail: ErrorDetail) => string;
  } = {},
): FormState {
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>();
  const [unplaced, setUnplaced] = useState<ErrorDetail[]>([]);
  const form = useRef<HTMLFormElement>();
  const [focusPending, setFocusPending] = useState(0);

  // After the errors are shown, focus goes to the first field (in the form's order) that has one.
  useEffect(() => {
    if (!focusPending || !form.current) return;
    const first = [...form.current.querySelectorAll('[id]')].find((el) => errors[el.id]);
    focusTarget(first ?? null)?.focus();
  }, [focusPending]);

  // A field's error stays until that field changes (input or change events bubble to the form),
  // not until the next submission; the refusal's notice goes with the last of them. The errors
  // change after the event's task: a render between a click's input and change events would put
  // a controlled checkbox or select back to its old state before its own handler reads it.
  useEffect(() => {
    const target = form.current;
    if (!target || Object.keys(errors).length === 0) return;
    let pending: number | undefined;
    const changed = new Set<Element>();
    const clear = (event: Event) => {
      changed.add(event.target as Element);
      window.clearTimeout(pending);
      pending = window.setTimeout(() => {
        const left = Object.fromEntries(
          Object.entries(errors).filter(([id]) => {
            const field = target.querySelector(`[id="${id}"]`);
            return !field || ![...changed].some((c) => field === c || field.contains(c));
          }),
        );
        changed.clear();
        if (Object.keys(left).length === Object.keys(errors).length) return;
        setErrors(left);
        if (Object.keys(left).length === 0 && unplaced.length === 0) setError(undefined);
      });
    };
    target.addEventListener('input', clear);
    target.addEventListener('change', clear);
    return () => {
      window.clearTimeout(pending);
      target.removeEventListener('input', clear);
      target.removeEventListener('change', clear);
    };
  }, [errors, unplaced]);

  const show = (found: Record<string, string>) => {
    setErrors(found);
    if (Object.keys(found).length > 0) setFocusPending((n) => n + 1);
  };

  const checked = (target: HTMLFormElement): Record<string, string> => {
    const found: Record<string, string> = {};
    for (const element of target.elements) {
      const control = element as HTMLInputElement;
      if (control.id && control.willValidate && !control.validity.valid)
        found[control.id] = control.validationMessage;
    }
    for (const [id, rule] of Object.entries(options.rules ?? {})) {
      const element = target.querySelector<HTMLInputElement>(`[id="${id}"]`);
      const problem = element && !found[id] ? rule(element.value ?? '') : '';
      if (problem) found[id] = problem;
    }
    return found;
  };

  const onSubmit = (event: Event) => {
    event.preventDefault();
    const target = event.currentTarget as HTMLFormElement;
    form.current = target;
    const found = checked(target);
    setError(undefined);
    setUnplaced([]);
    show(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    work(target)
      .catch((failure: unknown) => {
        setError(failure);
        const details = failure instanceof ApiError ? failure.details : [];
        const atFields: Record<string, string> = {};
        const rest: ErrorDetail[] = [];
        for (const detail of details) {
          const id = options.fieldOf?.(detail.field);
          const reason = options.describe?.(detail) ?? detail.reason;
          if (!id) rest.push(detail);
          else if (!atFields[id]?.includes(reason))
            atFields[id] = atFields[id] ? `${atFields[id]}; ${reason}` : reason;
        }
        setUnplaced(rest);
        show(atFields);
      })
      .finally(() => setBusy(false));
  };

  const reset = useCallback(() => {
    setErrors({});
    setError(undefined);
    setUnplaced([]);
  }, []);

  return { busy, errors, error, unplaced, onSubmit, reset };
}

/**
 * What went wrong with a form's submission beyond its fields: the refusal's message when it named
 * no field of the form, or the details no field shows.
 */
export function FormNotice(props: { form: FormState; title?: string }) {
  const { error, unplaced, errors } = props.form;
  if (!error) return null;
  if (Object.keys(errors).length === 0) return <ErrorNotice error={error} title={props.title} />;
  return (
    <div class="notice notice-error" role="alert">
      <strong>{props.title ?? 'Not saved'}</strong>
      <span>The API refused the fields marked above.</span>
      {unplaced.length > 0 && (
        <ul>
          {unplaced.map((d) => (
            <li key={d.field + d.reason}>
              <code>{d.field || '(body)'}</code> {d.reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** Announces a short message to screen readers and shows it as a toast. */
export function useToast(): [ComponentChildren, (message: string) => void] {
  const [message, setMessage] = useState('');
  const timer = useRef<number>();
  const show = useCallback((text: string) => {
    setMessage(text);
    window.clearTimeout(timer.current);
    timer.current = window.setTimeout(() => setMessage(''), 3500);
  }, []);
  const view = (
    <div class="toast-region" aria-live="polite" role="status">
      {message && <div class="toast">{message}</div>}
    </div>
  );
  return [view, show];
}

/** One user action at a time: busy while it runs, its error kept to show. */
export function useAction(): {
  busy: boolean;
  error: unknown;
  setError: (error: unknown) => void;
  act: (work: () => Promise<void>) => Promise<void>;
} {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();
  const act = useCallback(async (work: () => Promise<void>) => {
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, setError, act };
}

/** Markdown links ([title](url)) and bare http(s) URLs of a text (an agent's citations). */
const LINK =
  /\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)|(https?:\/\/[^\s<>()"'\]]+[^\s<>()"'.,;:!?\]])/g;

/** Text with its citations and URLs as links that open in a new tab. */
export function Linked(props: { text: string }) {
  const parts: ComponentChildren[] = [];
  let at = 0;
  for (const match of props.text.matchAll(LINK)) {
    const index = match.index ?? 0;
    if (index > at) parts.push(props.text.slice(at, index));
    const href = match[2] ?? match[3] ?? '';
    parts.push(
      <a key={index} href={href} target="_blank" rel="noreferrer noopener">
        {match[1] ?? href}
      </a>,
    );
    at = index + match[0].length;
  }
  if (at < props.text.length) parts.push(props.text.slice(at));
  return <p class="answer-text">{parts}</p>;
}

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** A conversation, the reply being streamed last; links in replies are shown as links. */
export function ChatLog(props: { messages: ChatMessage[]; speaker: string; live?: string }) {
  return (
    <div class="chat-log" aria-live="polite" data-testid="chat-log">
      {props.messages.length === 0 && !props.live && (
        <p class="muted small">The conversation appears here.</p>
      )}
      {props.messages.map((m, i) => (
        <div key={i} class={`chat-message chat-${m.role}`}>
          <span class="chat-role">{m.role === 'user' ? 'You' : props.speaker}</span>
          <Linked text={m.content} />
        </div>
      ))}
      {props.live && (
        <div class="chat-message chat-assistant" aria-busy="true">
          <span class="chat-role">{props.speaker}</span>
          <Linked text={props.live} />
        </div>
      )}
    </div>
  );
}

/**
 * A question before an action that cannot be undone (revoke, delete, rotate): open while subject
 * is set; the action's error is shown in the dialog, which closes once the action succeeds.
 */
export function ConfirmDialog<T>(props: {
  subject: T | undefined;
  title: string;
  confirmLabel: string;
  tone?: 'danger' | 'primary';
  onConfirm: (subject: T) => Promise<void>;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const { busy, error, setError, act } = useAction();
  const close = () => {
    setError(undefined);
    props.onClose();
  };
  return (
    <Modal
      title={props.title}
      open={props.subject !== undefined}
      onClose={close}
      footer={
        <>
          <Button onClick={close}>Cancel</Button>
          <Button
            variant={props.tone ?? 'danger'}
            busy={busy}
            onClick={() =>
              act(async () => {
                await props.onConfirm(props.subject as T);
                close();
              })
            }
          >
            {props.confirmLabel}
          </Button>
        </>
      }
    >
      {props.children}
      <ErrorNotice error={error} />
    </Modal>
  );
}

export function StreamToggle(props: { checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <label class="checkbox">
      <input
        type="checkbox"
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      Stream the answer as it is written
    </label>
  );
}

/**
 * A table (or other wide content) that scrolls sideways in its own box on a narrow screen, so the
 * page itself never does. While it overflows it takes focus, so the keyboard can scroll it too.
 */
export function ScrollBox(props: { label: string; children: ComponentChildren; class?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const [overflowing, setOverflowing] = useState(false);
  useEffect(() => {
    const box = ref.current;
    if (!box) return;
    const measure = () => setOverflowing(box.scrollWidth > box.clientWidth + 1);
    const observer = new ResizeObserver(measure);
    observer.observe(box);
    if (box.firstElementChild) observer.observe(box.firstElementChild);
    return () => observer.disconnect();
  }, []);
  return (
    <div
      ref={ref}
      class={`table-wrap ${props.class ?? ''}`}
      role="region"
      aria-label={props.label}
      tabIndex={overflowing ? 0 : undefined}
    >
      {props.children}
    </div>
  );
}

/** A column of a DataTable: its heading, right-aligned numbers, or a heading only screen readers hear. */
export type Column = string | { label: string; num?: boolean; hidden?: boolean };

/**
 * A table in its own scroll box: a caption for screen readers (the label), the headings, then the
 * rows the caller renders.
 */
export function DataTable(props: {
  label: string;
  columns: Column[];
  testId?: string;
  compact?: boolean;
  children: ComponentChildren;
}) {
  return (
    <ScrollBox label={props.label}>
      <table class={`table ${props.compact ? 'compact' : ''}`} data-testid={props.testId}>
        <caption class="sr-only">{props.label}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => {
              const { label, num, hidden } =
                typeof column === 'string' ? { label: column } : column;
              return (
                <th scope="col" class={num ? 'num' : undefined} key={label}>
                  {hidden ? <span class="sr-only">{label}</span> : label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </ScrollBox>
  );
}
