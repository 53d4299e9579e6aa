import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider, Route, Router, useLocation } from 'preact-iso';
import { api, setCsrfToken, whenSessionEnds } from './api/client';
import { can, MeContext, type Me } from './session';
import { SignInPage } from './pages/SignIn';
import { DashboardPage } from './pages/Dashboard';
import { ProductsPage } from './pages/Products';
import { SearchPage } from './pages/PortfolioSearch';
import { ProductPage } from './pages/Product';
import { ReleasePage } from './pages/Release';
import { SettingsPage } from './pages/Settings';
import { NotificationsPage } from './pages/notifications/NotificationsPage';
import { AuditPage } from './pages/Audit';
import { DisclosurePage } from './pages/Disclosure';
import { CraCasesPage } from './pages/cra/CraCases';
import { CraCasePage } from './pages/cra/CraCase';
import { NotFoundPage } from './pages/NotFound';

/** Pages anyone may open: the public disclosure and the sign-in page itself. */
const isPublicPath = (path: string) => path.startsWith('/d/') || path === '/sign-in';

function SignedInShell() {
  const location = useLocation();
  const [me, setMe] = useState<Me | undefined>();
  const [failure, setFailure] = useState<string | undefined>();

  useEffect(() => {
    const toSignIn = (expired: boolean) => {
      const here = window.location.pathname + window.location.search;
      location.route(`/sign-in?${expired ? 'expired=1&' : ''}returnTo=${encodeURIComponent(here)}`, true);
    };
    api.GET('/api/me').then(
      ({ data, response }) => {
        if (data) {
          setCsrfToken(data.data.session?.csrfToken);
          setMe(data.data);
          // From now on a 401 means the session ended while the console was open.
          whenSessionEnds(() => toSignIn(true));
        } else if (response.status === 401) toSignIn(false);
        else setFailure(`The API answered ${response.status}.`);
      },
      () => setFailure('The API is not reachable.'),
    );
  }, []);

  if (failure)
    return (
      <main id="main" class="page">
        <h1>Vexdesk</h1>
        <p role="alert">{failure}</p>
      </main>
    );
  if (!me)
    return (
      <main id="main" class="page">
        <p class="muted" aria-live="polite">
          Loading…
        </p>
      </main>
    );
  return (
    <MeContext.Provider value={me}>
      <Header me={me} />
      <main id="main" class="page" tabIndex={-1}>
        <Router>
          <Route path="/" component={DashboardPage} />
          <Route path="/products" component={ProductsPage} />
          <Route path="/search" component={SearchPage} />
          <Route path="/products/:productId" component={ProductPage} />
          <Route path="/releases/:releaseId" component={ReleasePage} />
          <Route path="/settings" component={SettingsPage} />
          <Route path="/settings/notifications" component={NotificationsPage} />
          <Route path="/cra" component={CraCasesPage} />
          <Route path="/cra/:caseId" component={CraCasePage} />
          <Route path="/audit" component={AuditPage} />
          <Route default component={NotFoundPage} />
        </Router>
      </main>
    </MeContext.Provider>
  );
}

function Header({ me }: { me: Me }) {
  const { path } = useLocation();
  const current = (prefix: string) =>
    (
      prefix === '/'
        ? path === '/'
        : prefix === '/products'
          ? path.startsWith('/products') || path.startsWith('/releases')
          : path.startsWith(prefix)
    )
      ? 'page'
      : undefined;
  const signOut = async () => {
    await api.POST('/api/auth/logout');
    setCsrfToken(undefined);
    window.location.assign('/sign-in');
  };
  return (
    <header class="topbar">
      <a class="skip" href="#main">
        Skip to content
      </a>
      <a class="brand" href="/">
        Vexdesk
      </a>
      <nav aria-label="Main">
        <a href="/" aria-current={current('/')}>
          Dashboard
        </a>
        <a href="/products" aria-current={current('/products')}>
          Products
        </a>
        {can(me, 'cra:read') ? (
          <a href="/cra" aria-current={current('/cra')}>
            CRA reporting
          </a>
        ) : null}
        <a href="/audit" aria-current={current('/audit')}>
          Audit
        </a>
        <a href="/settings" aria-current={current('/settings')}>
          Settings
        </a>
      </nav>
      <span class="who">
        {me.team.name} · {me.session?.email ?? me.caller.name}
      </span>
      {me.session ? (
        <button type="button" class="link" onClick={() => void signOut()}>
          Sign out
        </button>
      ) : null}
    </header>
  );
}

function PublicShell() {
  return (
    <main id="main" class="page">
      <Router>
        <Route path="/sign-in" component={SignInPage} />
        <Route path="/d/:slug" component={DisclosurePage} />
      </Router>
    </main>
  );
}

function App() {
  const { path } = useLocation();
  return isPublicPath(path) ? <PublicShell /> : <SignedInShell />;
}

render(
  <LocationProvider scope={/^\/(?!api\/)/}>
    <App />
  </LocationProvider>,
  document.getElementById('app')!,
);
