import type { ComponentChildren, JSX } from 'preact';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from './api';

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

export function Field(props: {
  label: string;
  hint?: ComponentChildren;
  error?: string;
  children: ComponentChildren;
  id: string;
}) {
  return (
    <div class={`field ${props.error ? 'field-invalid' : ''}`}>
      <label for={props.id}>{props.label}</label>
      {props.children}
      {props.hint && !props.error && (
        <div class="field-hint" id={`${props.id}-hint`}>
          {props.hint}
        </div>
      )}
      {props.error && (
        <div class="field-error" id={`${props.id}-error`} role="alert">
          {props.error}
        </div>
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
