/** The console's frame: a skip link, the navigation of the session's kind, sign-out, and the page of the route. */
import { lazy, Suspense } from 'react';
import { useSession } from './session.tsx';
import { href, useRoute } from './router.ts';
import { Loading } from './components/common.tsx';
import { SignIn } from './pages/SignIn.tsx';
import { Overview } from './pages/Overview.tsx';

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

const ACCOUNT_NAV: [string, string][] = [
  ['/', 'Overview'],
  ['/passes', 'Passes'],
  ['/issue', 'Issue a pass'],
  ['/templates', 'Templates'],
  ['/batches', 'Batches'],
  ['/webhooks', 'Webhooks'],
  ['/readers', 'Readers & scans'],
  ['/audit', 'Audit log'],
];
const ADMIN_NAV: [string, string][] = [['/', 'Accounts']];

function AccountPages({ segments }: { segments: string[] }) {
  const [first, second] = segments;
  switch (first) {
    case undefined:
      return <Overview />;
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
    default:
      return <p>Nothing here. Choose a page from the menu.</p>;
  }
}

function AdminPages({ segments }: { segments: string[] }) {
  const [first, second] = segments;
  if (first === 'accounts' && second) return <AccountPage id={second} />;
  return <Accounts />;
}

export function App() {
  const { session, signOut, backToAdministration } = useSession();
  const { segments } = useRoute();
  if (!session) return <SignIn />;
  const nav = session.kind === 'admin' ? ADMIN_NAV : ACCOUNT_NAV;
  const current = `/${segments[0] ?? ''}`;
  return (
    <>
      <button type="button" className="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header className="top">
        <span className="brand">Wallet Pass console</span>
        <span className="who">{session.kind === 'admin' ? 'Administration' : (session.accountName ?? 'Account')}</span>
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
          {session.adminToken && (
            <button type="button" className="secondary" onClick={backToAdministration}>
              Back to administration
            </button>
          )}
          <button type="button" className="secondary" onClick={signOut}>
            Sign out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1} key={segments.join('/')}>
        <Suspense fallback={<Loading />}>{session.kind === 'admin' ? <AdminPages segments={segments} /> : <AccountPages segments={segments} />}</Suspense>
      </main>
    </>
  );
}
