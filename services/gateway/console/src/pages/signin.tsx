import { useState } from 'preact/hooks';
import { API_KEY_SHAPE, ApiError, get, saveSession, type Organization, type Session } from '../api';
import { Button, Field, FormNotice, useForm } from '../ui';

type Mode = 'organization' | 'admin';

/** A refusal of the secret, in words, and what to do instead when the other mode would take it. */
class Refused extends Error {
  constructor(
    message: string,
    readonly switchTo?: Mode,
  ) {
    super(message);
  }
}

/** Whether the gateway takes this secret as its admin token. */
async function isAdminToken(secret: string): Promise<boolean> {
  try {
    await get('/api/v2/admin/organizations', { session: { kind: 'admin', secret } });
    return true;
  } catch {
    return false;
  }
}

/** Signs in by making a call with the key: nothing is stored on the server, the key stays in this tab. */
export function SignInPage(props: {
  onSignedIn: (session: Session) => void;
  /** Why the API signed this tab out (the key was revoked while in use). */
  signedOutBecause?: string;
}) {
  const [mode, setMode] = useState<Mode>('organization');
  const [secret, setSecret] = useState('');

  const signIn = async (as: Mode) => {
    const value = secret.trim();
    try {
      let session: Session;
      if (as === 'organization') {
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
      if (!(e instanceof ApiError && (e.status === 401 || e.status === 403))) throw e;
      if (as === 'admin')
        throw API_KEY_SHAPE.test(value)
          ? new Refused(
              'That is an API key, not the admin token: sign in as Organization to see its organization.',
              'organization',
            )
          : new Refused(
              'That admin token was not accepted (or the gateway has no ADMIN_TOKEN set).',
            );
      if (!API_KEY_SHAPE.test(value) && (await isAdminToken(value)))
        throw new Refused(
          'That is the gateway’s admin token, not an API key: sign in as Administrator to manage every organization.',
          'admin',
        );
      throw new Refused(
        API_KEY_SHAPE.test(value)
          ? `That key was not accepted: ${e.message}.`
          : 'That is not an API key: keys start with sk_ (npm start prints one for the organization dev).',
      );
    }
  };

  const form = useForm(() => signIn(mode), { fieldOf: () => undefined });
  const refusal = form.error instanceof Refused ? form.error : undefined;

  return (
    <main class="signin">
      <div class="signin-card">
        <div class="brand brand-large">
          <span class="brand-mark" aria-hidden="true" />
          <span>Switchyard</span>
        </div>
        <h1>Sign in to the console</h1>
        {props.signedOutBecause && !form.error && (
          <div class="notice notice-info" role="status">
            <strong>You were signed out</strong>
            <span>The API refused this tab’s key: {props.signedOutBecause}.</span>
          </div>
        )}
        <p class="muted">
          {mode === 'organization'
            ? 'Use an API key of your organization (npm start prints one for the organization dev).'
            : 'Use the gateway’s ADMIN_TOKEN to manage every organization, its quota and its keys.'}
        </p>
        <div class="segmented segmented-full" role="group" aria-label="Sign in as">
          <button
            type="button"
            aria-pressed={mode === 'organization'}
            onClick={() => {
              setMode('organization');
              form.reset();
            }}
          >
            Organization
          </button>
          <button
            type="button"
            aria-pressed={mode === 'admin'}
            onClick={() => {
              setMode('admin');
              form.reset();
            }}
          >
            Administrator
          </button>
        </div>
        <form onSubmit={form.onSubmit} noValidate>
          <Field
            id="secret"
            label={mode === 'organization' ? 'API key' : 'Admin token'}
            hint="Kept in this browser tab only (session storage) and sent as the Authorization header."
            error={form.errors.secret}
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
          {refusal ? (
            <div class="notice notice-error" role="alert">
              <strong>Could not sign in</strong>
              <span>{refusal.message}</span>
              {refusal.switchTo && (
                <Button
                  size="sm"
                  onClick={() => {
                    setMode(refusal.switchTo!);
                    form.reset();
                  }}
                >
                  {refusal.switchTo === 'admin'
                    ? 'Switch to Administrator'
                    : 'Switch to Organization'}
                </Button>
              )}
            </div>
          ) : (
            <FormNotice form={form} title="Could not sign in" />
          )}
          <Button variant="primary" type="submit" busy={form.busy} class="btn-block">
            Sign in
          </Button>
        </form>
      </div>
    </main>
  );
}
