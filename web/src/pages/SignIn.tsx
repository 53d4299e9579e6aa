import { useLocation } from 'preact-iso';
import { signInUrl } from '../api/client';
import { useTitle } from '../hooks';

export function SignInPage() {
  const { query } = useLocation();
  useTitle('Sign in');
  const expired = query.expired === '1';
  return (
    <div class="signin card">
      <h1>Sign in to Vexdesk</h1>
      {expired ? (
        <p role="status">Your session has ended. Sign in again to continue.</p>
      ) : (
        <p>Vexdesk signs you in with your organisation's identity provider.</p>
      )}
      <a class="button primary" href={signInUrl(query.returnTo ?? '/')}>
        Sign in
      </a>
    </div>
  );
}
