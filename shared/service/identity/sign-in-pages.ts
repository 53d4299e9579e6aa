/**
 * The page a browser gets when sign-in does not end in a session (an uninvited identity
 * gets a clear page, not a team). Static HTML, no script, every value escaped.
 */
import type { SignInOutcome } from './sign-in';

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
}

const EXPLANATIONS: Record<
  Extract<SignInOutcome, { kind: 'refused' }>['reason'],
  { title: string; text: (email: string) => string }
> = {
  not_invited: {
    title: 'You have not been invited yet',
    text: (email) =>
      `Your identity provider signed you in as ${email}, but no Vexdesk team has invited this address. Ask an administrator of your team to invite it under Settings → Members, then sign in again.`,
  },
  email_unverified: {
    title: 'Your email address is not verified',
    text: (email) =>
      `Your identity provider did not confirm that ${email || 'your email address'} is verified, so it cannot be matched to an invitation. Verify the address with your provider, or ask its administrator to assert email_verified.`,
  },
  flow_unknown: {
    title: 'This sign-in has expired',
    text: () =>
      'The sign-in took longer than 10 minutes, was already completed, or was started in another browser. Start again.',
  },
  provider_error: {
    title: 'Sign-in was cancelled',
    text: () =>
      'Your identity provider did not sign you in. Start again, or ask your administrator if this keeps happening.',
  },
  invalid_response: {
    title: 'Sign-in failed',
    text: () =>
      'The answer of your identity provider could not be verified. Start again; if this keeps happening, the sign-in configuration needs checking.',
  },
};

export function signInRefusalPage(outcome: Extract<SignInOutcome, { kind: 'refused' }>): string {
  const { title, text } = EXPLANATIONS[outcome.reason];
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Vexdesk</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 40rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5">
<main>
<h1>${escapeHtml(title)}</h1>
<p>${escapeHtml(text(outcome.email ?? ''))}</p>
<p><a href="/api/auth/login">Sign in again</a></p>
</main>
</body>
</html>
`;
}
