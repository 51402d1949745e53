/**
 * The console's frame: a skip link, the navigation the session may use, the account switcher,
 * "Your account" and sign-out, and the page of the route. A person sees only the pages and
 * controls their role's scopes allow (the API refuses the rest with 403 anyway); an
 * owner or admin who still needs a second factor sees only its enrolment; an invitation link
 * (`#invitation=<token>`) opens the invitation.
 */
import { lazy, Suspense } from 'react';
import type { Schemas } from './api.ts';
import { type PersonSession, useSession } from './session.tsx';
import { href, useRoute } from './router.ts';
import { Loading, PageTitle } from './components/common.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Overview } from './pages/Overview.tsx';
import { invitationToken } from './invitationLink.ts';
import { ROLE_LABELS } from './roles.ts';

const Passes = lazy(() => import('./pages/Passes.tsx'));
const PassPage = lazy(() => import('./pages/PassPage.tsx'));
const IssuePass = lazy(() => import('./pages/IssuePass.tsx'));
const Templates = lazy(() => import('./pages/Templates.tsx'));
const Designer = lazy(() => import('./pages/Designer.tsx'));
const Batches = lazy(() => import('./pages/Batches.tsx'));
const Webhooks = lazy(() => import('./pages/Webhooks.tsx'));
const ReadersAndScans = lazy(() => import('./pages/ReadersAndScans.tsx'));
const Accounts = lazy(() => import('./pages/Accounts.tsx'));
const AccountPage = lazy(() => import('./pages/AccountPage.tsx'));
const AuditLog = lazy(() => import('./pages/AuditLog.tsx'));
const Members = lazy(() => import('./pages/Members.tsx'));
const ApiKeys = lazy(() => import('./pages/ApiKeys.tsx'));
const Me = lazy(() => import('./pages/Me.tsx'));
const Invitation = lazy(() => import('./pages/Invitation.tsx'));
const SecondFactor = lazy(() => import('./pages/SecondFactor.tsx'));

type Scope = Schemas['ApiTokenScope'];

/** The account pages: path, label, and the scope a role needs to see it (none: everyone). */
const ACCOUNT_NAV: [path: string, label: string, scope?: Scope][] = [
  ['/', 'Overview'],
  ['/passes', 'Passes', 'passes:read'],
  ['/issue', 'Issue a pass', 'passes:write'],
  ['/templates', 'Templates', 'templates:read'],
  ['/batches', 'Batches', 'batches:read'],
  ['/webhooks', 'Webhooks', 'webhooks:read'],
  ['/readers', 'Readers & scans', 'readers:read'],
  ['/audit', 'Audit log', 'audit:read'],
  ['/members', 'Members', 'members:read'],
  ['/api-keys', 'API keys', 'keys:manage'],
];
const ADMIN_NAV: [string, string][] = [['/', 'Accounts']];

/** The scope a route's first segment needs (`templates/new` needs writing templates). */
function routeScope(segments: string[]): Scope | undefined {
  const [first, second] = segments;
  if (first === 'templates' && second === 'new') return 'templates:write';
  if (first === 'me') return undefined;
  return ACCOUNT_NAV.find(([path]) => path === `/${first ?? ''}`)?.[2];
}

/** The home page: the overview for roles that read statistics, else links to the pages the role has. */
function Home({ can }: { can: (scope: Scope) => boolean }) {
  if (can('stats:read')) return <Overview />;
  const pages = ACCOUNT_NAV.filter(([path, , scope]) => path !== '/' && scope && can(scope));
  return (
    <>
      <PageTitle>Welcome</PageTitle>
      <ul>
        {pages.map(([path, label]) => (
          <li key={path}>
            <a href={href(path)}>{label}</a>
          </li>
        ))}
      </ul>
    </>
  );
}

function AccountPages({ segments, can }: { segments: string[]; can: (scope: Scope) => boolean }) {
  const [first, second] = segments;
  const scope = routeScope(segments);
  if (scope && !can(scope))
    return (
      <>
        <PageTitle>Not available</PageTitle>
        <p>Your role does not include this page. Choose a page from the menu.</p>
      </>
    );
  switch (first) {
    case undefined:
      return <Home can={can} />;
    case 'passes':
      return second ? <PassPage id={second} /> : <Passes />;
    case 'issue':
      return <IssuePass />;
    case 'templates':
      return second ? <Designer id={second === 'new' ? null : second} /> : <Templates />;
    case 'batches':
      return <Batches />;
    case 'webhooks':
      return <Webhooks />;
    case 'readers':
      return <ReadersAndScans />;
    case 'audit':
      return <AuditLog />;
    case 'members':
      return <Members />;
    case 'api-keys':
      return <ApiKeys />;
    case 'me':
      return <Me />;
    default:
      return <p>Nothing here. Choose a page from the menu.</p>;
  }
}

function AdminPages({ segments }: { segments: string[] }) {
  const [first, second] = segments;
  if (first === 'accounts' && second) return <AccountPage id={second} />;
  return <Accounts />;
}

/** The account switcher: a select of the person's memberships, shown when there are several. */
function AccountSwitcher({ session }: { session: PersonSession }) {
  const { switchAccount } = useSession();
  if (session.memberships.length < 2) {
    const current = session.memberships.find((m) => m.accountId === session.accountId);
    return <span className="who">{current ? `${current.accountName} · ${ROLE_LABELS[current.role]}` : 'No account'}</span>;
  }
  return (
    <span className="who switcher">
      <select aria-label="Account" value={session.accountId ?? ''} onChange={(e) => void switchAccount(e.target.value).catch(() => window.location.reload())}>
        {session.memberships.map((m) => (
          <option key={m.accountId} value={m.accountId}>
            {m.accountName} · {ROLE_LABELS[m.role]}
          </option>
        ))}
      </select>
    </span>
  );
}

export function App() {
  const { session, signOut, can } = useSession();
  const { segments } = useRoute();
  const invitation = invitationToken();
  if (session === undefined)
    return (
      <main id="main">
        <Loading what="Opening the console" />
      </main>
    );
  if (invitation && session?.kind !== 'admin')
    return (
      <Suspense fallback={<Loading />}>
        <Invitation token={invitation} />
      </Suspense>
    );
  if (!session) return <SignIn />;
  if (session.kind === 'person' && session.secondFactor.required)
    return (
      <Suspense fallback={<Loading />}>
        <SecondFactor />
      </Suspense>
    );
  if (session.kind === 'person' && !session.accountId)
    return (
      <main id="main" className="sign-in">
        <PageTitle>No account</PageTitle>
        <p>You are signed in as {session.person.name}, but you belong to no account any more. Ask an owner for an invitation.</p>
        <button type="button" className="secondary" onClick={() => void signOut()}>
          Sign out
        </button>
      </main>
    );
  const nav = session.kind === 'admin' ? ADMIN_NAV : ACCOUNT_NAV.filter(([, , scope]) => !scope || can(scope));
  const current = `/${segments[0] ?? ''}`;
  return (
    <>
      <button type="button" className="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header className="top">
        <span className="brand">Wallet Pass console</span>
        {session.kind === 'admin' ? <span className="who">Administration</span> : <AccountSwitcher session={session} />}
        <nav aria-label="Main">
          <ul>
            {nav.map(([path, label]) => (
              <li key={path}>
                <a href={href(path)} aria-current={current === path || (path === '/' && current === '/accounts') ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div className="session-actions">
          {session.kind === 'person' && (
            <a className="button secondary" href={href('/me')} aria-current={current === '/me' ? 'page' : undefined}>
              {session.person.name}
            </a>
          )}
          <button type="button" className="secondary" onClick={() => void signOut()}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} key={`${session.kind === 'person' ? session.accountId : 'admin'}/${segments.join('/')}`}>
        <Suspense fallback={<Loading />}>
          {session.kind === 'admin' ? <AdminPages segments={segments} /> : <AccountPages segments={segments} can={can} />}
        </Suspense>
      </main>
    </>
  );
}
