import type { ComponentType } from 'preact';
import {
  Bot,
  Building2,
  BookOpen,
  FlaskConical,
  KeyRound,
  LayoutDashboard,
  ScrollText,
  Users,
  Webhook,
  Zap,
  type LucideIcon,
} from 'lucide-preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { clearSession, loadSession, whenUnauthorized, type Session } from './api';
import { AdminPage } from './pages/admin';
import { AgentsPage } from './pages/agents';
import { EventsPage } from './pages/events';
import { KeysPage } from './pages/keys';
import { KnowledgePage } from './pages/knowledge';
import { LogsPage } from './pages/logs';
import { OverviewPage } from './pages/overview';
import { PlaygroundPage } from './pages/playground';
import { SignInPage } from './pages/signin';
import { TeamsPage } from './pages/teams';
import { WebhooksPage } from './pages/webhooks';
import { Link, navigate, usePage } from './router';

interface PageEntry {
  page: string;
  label: string;
  icon: LucideIcon;
  component: ComponentType;
}

/** The organization's pages, in the order of the navigation. */
const ORGANIZATION_PAGES: PageEntry[] = [
  { page: '', label: 'Overview', icon: LayoutDashboard, component: OverviewPage },
  { page: 'keys', label: 'API keys', icon: KeyRound, component: KeysPage },
  { page: 'teams', label: 'Teams', icon: Users, component: TeamsPage },
  { page: 'playground', label: 'Playground', icon: FlaskConical, component: PlaygroundPage },
  { page: 'knowledge', label: 'Knowledge', icon: BookOpen, component: KnowledgePage },
  { page: 'agents', label: 'Agents', icon: Bot, component: AgentsPage },
  { page: 'webhooks', label: 'Webhooks', icon: Webhook, component: WebhooksPage },
  { page: 'events', label: 'Events', icon: Zap, component: EventsPage },
  { page: 'logs', label: 'Request logs', icon: ScrollText, component: LogsPage },
];

const ADMIN_PAGES: PageEntry[] = [
  { page: 'admin', label: 'Organizations', icon: Building2, component: AdminPage },
];

export function App() {
  const [session, setSession] = useState<Session | null>(loadSession);
  // Why the API signed this tab out (a key revoked while it was in use), said on the sign-in page.
  const [signedOutBecause, setSignedOutBecause] = useState<string>();
  const page = usePage();
  const main = useRef<HTMLElement>(null);

  // After a sign-in or a move to another page, focus goes to the new content (as a page load would).
  useEffect(() => main.current?.focus(), [page, session]);

  useEffect(() => {
    whenUnauthorized((refusal) => {
      clearSession();
      setSession(null);
      setSignedOutBecause(refusal.message);
    });
  }, []);

  if (!session)
    return (
      <SignInPage
        signedOutBecause={signedOutBecause}
        onSignedIn={(s) => {
          setSignedOutBecause(undefined);
          setSession(s);
          navigate(s.kind === 'admin' ? 'admin' : '', true);
        }}
      />
    );

  const pages = session.kind === 'admin' ? ADMIN_PAGES : ORGANIZATION_PAGES;
  const top = page.split('/')[0];
  const current = pages.find((p) => p.page === top) ?? pages[0];
  const Page = current.component;
  const signOut = () => {
    clearSession();
    setSession(null);
    navigate('', true);
  };

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <span class="brand-mark" aria-hidden="true" />
          <span>Switchyard</span>
        </div>
        <div class="org-chip" title={session.organization}>
          <span class="org-avatar" aria-hidden="true">
            {(session.organizationName ?? 'A').slice(0, 1).toUpperCase()}
          </span>
          <span class="org-text">
            <span class="org-name">
              {session.kind === 'admin' ? 'Administrator' : session.organizationName}
            </span>
            <span class="org-id">
              {session.kind === 'admin' ? 'all organizations' : session.organization}
            </span>
          </span>
        </div>
        <nav aria-label="Console">
          <ul>
            {pages.map((p) => (
              <li key={p.page}>
                <Link page={p.page} aria-current={p === current ? 'page' : undefined}>
                  <p.icon class="nav-icon" size={17} aria-hidden="true" />
                  {p.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="sidebar-footer">
          <a href="/openapi.json" target="_blank" rel="noreferrer">
            API reference (OpenAPI)
          </a>
          <button type="button" class="link-btn" onClick={signOut}>
            Sign out
          </button>
        </div>
      </aside>
      <main id="main" class="content" tabIndex={-1} ref={main}>
        <Page key={current.page} />
      </main>
    </div>
  );
}
