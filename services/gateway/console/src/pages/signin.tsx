import { useState } from 'preact/hooks';
import { ApiError, get, saveSession, type Organization, type Session } from '../api';
import { Button, ErrorNotice, Field } from '../ui';

/** Signs in by making a call with the key: nothing is stored on the server, the key stays in this tab. */
export function SignInPage(props: { onSignedIn: (session: Session) => void }) {
  const [mode, setMode] = useState<'organization' | 'admin'>('organization');
  const [secret, setSecret] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>();

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    const value = secret.trim();
    try {
      let session: Session;
      if (mode === 'organization') {
        const probe: Session = { kind: 'organization', secret: value };
        const org = await get<Organization>('/api/v2/organization', { session: probe });
        session = { ...probe, organization: org.id, organizationName: org.name };
      } else {
        session = { kind: 'admin', secret: value };
        await get('/api/v2/admin/organizations', { session });
      }
      saveSession(session);
      props.onSignedIn(session);
    } catch (e) {
      setError(
        e instanceof ApiError && (e.status === 401 || e.status === 403)
          ? new Error(
              mode === 'organization'
                ? 'That key was not accepted: it is unknown, revoked or mistyped.'
                : 'That admin token was not accepted (or the gateway has no ADMIN_TOKEN set).',
            )
          : e,
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <div class="signin-card">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true" />
          <span>Switchyard</span>
        </div>
        <h1>Sign in to the console</h1>
        <p class="muted">
          {mode === 'organization'
            ? 'Use an API key of your organization (npm start prints one for the organization dev).'
            : 'Use the gateway’s ADMIN_TOKEN to manage every organization, its quota and its keys.'}
        </p>
        <div class="segmented segmented-full" role="group" aria-label="Sign in as">
          <button
            type="button"
            aria-pressed={mode === 'organization'}
            onClick={() => setMode('organization')}
          >
            Organization
          </button>
          <button type="button" aria-pressed={mode === 'admin'} onClick={() => setMode('admin')}>
            Administrator
          </button>
        </div>
        <form onSubmit={submit}>
          <Field
            id="secret"
            label={mode === 'organization' ? 'API key' : 'Admin token'}
            hint="Kept in this browser tab only (session storage) and sent as the Authorization header."
          >
            <input
              id="secret"
              type="password"
              autoComplete="off"
              spellcheck={false}
              required
              placeholder={mode === 'organization' ? 'sk_…' : ''}
              value={secret}
              onInput={(e) => setSecret(e.currentTarget.value)}
            />
          </Field>
          <ErrorNotice error={error} title="Could not sign in" />
          <Button variant="primary" type="submit" busy={busy} class="btn-block">
            Sign in
          </Button>
        </form>
      </div>
    </main>
  );
}
