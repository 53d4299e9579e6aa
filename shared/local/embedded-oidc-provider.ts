/**
 * The OpenID provider `npm start` runs on loopback, so browser sign-in works with no
 * outside service: oidc-provider (a certified OP) holding the dev accounts of bootstrap.json, with one
 * public client (PKCE, no secret) whose redirect is this server's sign-in callback. Its login page is a
 * real form that checks the password; consent is implied for this one first-party client. Local only:
 * the stack uses Cognito or the customer's provider.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { trimTrailing } from '../service/text';

export interface DevAccount {
  email: string;
  name: string;
  password: string;
}

export interface EmbeddedOidcProvider {
  issuer: string;
  clientId: string;
  close(): Promise<void>;
}

export const LOCAL_CLIENT_ID = 'vexdesk-local-console';
const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] ?? char);
/**
 * The login form posts to this provider, which redirects to the relying party's callback: browsers
 * apply `form-action` to every hop of that redirect, so the callback's origin is allowed too (with
 * 'self' alone, a real browser stops at the form).
 */
const pageCsp = (redirectUri: string) =>
  `default-src 'none'; style-src 'unsafe-inline'; form-action 'self' ${new URL(redirectUri).origin}; frame-ancestors 'none'; base-uri 'none'`;
const INTERACTION_PATH = /^\/interaction\/([\w-]{1,64})(\/login)?$/;
const MAX_FORM_BYTES = 8 * 1024;

function passwordMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

function loginPage(uid: string, error?: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Sign in · Vexdesk local</title></head>
<body style="font-family: system-ui, sans-serif; max-width: 24rem; margin: 4rem auto; padding: 0 1rem">
<main>
<h1>Sign in to Vexdesk</h1>
<p>Local identity provider of <code>npm start</code>. The demo account is in <code>bootstrap.json</code> (<code>login</code>).</p>
${error ? `<p role="alert" style="color: #a00">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/interaction/${escapeHtml(uid)}/login">
<p><label for="email">Email</label><br><input id="email" name="email" type="email" autocomplete="username" required></p>
<p><label for="password">Password</label><br><input id="password" name="password" type="password" autocomplete="current-password" required></p>
<p><button type="submit">Sign in</button></p>
</form>
</main>
</body>
</html>
`;
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

function sendPage(response: ServerResponse, status: number, html: string, csp: string): void {
  response.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
  });
  response.end(html);
}

/**
 * Starts the provider on 127.0.0.1 (`port` 0: any free port). `accounts` is read at each sign-in, so
 * accounts bootstrapped after start-up count.
 */
export async function startEmbeddedOidcProvider(options: {
  port: number;
  redirectUri: string;
  accounts: () => readonly DevAccount[];
}): Promise<EmbeddedOidcProvider> {
  const server: Server = createServer();
  await new Promise<void>((listening, failed) => {
    server.once('error', failed);
    server.listen(options.port, '127.0.0.1', () => listening());
  });
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const csp = pageCsp(options.redirectUri);
  const findAccount = (email: string) =>
    options.accounts().find((account) => account.email.toLowerCase() === email.toLowerCase());

  // A signing key per start: ID tokens only live for the moment of the callback.
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const provider = new Provider(issuer, {
    jwks: {
      keys: [
        { ...(await exportJWK(privateKey)), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' },
      ] as never,
    },
    clients: [
      {
        client_id: LOCAL_CLIENT_ID,
        token_endpoint_auth_method: 'none',
        redirect_uris: [options.redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    features: { devInteractions: { enabled: false } },
    pkce: { required: () => true },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    // First-party client: the signed-in account's grant of the requested OIDC scopes is implied.
    loadExistingGrant: async (ctx: KoaContextWithOIDC) => {
      const grantId = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session?.grantIdFor(ctx.oidc.client!.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const accountId = ctx.oidc.session?.accountId;
      if (!accountId) return undefined;
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client!.clientId, accountId });
      grant.addOIDCScope('openid email profile');
      await grant.save();
      return grant;
    },
    findAccount: (_ctx, sub) => {
      const account = findAccount(sub);
      if (!account) return undefined;
      return {
        accountId: account.email,
        claims: () => ({ sub: account.email, email: account.email, email_verified: true, name: account.name }),
      };
    },
  });
  const callback = provider.callback();

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? '/', issuer);
    const interaction = INTERACTION_PATH.exec(url.pathname);
    if (!interaction) {
      // Koa's handler answers its own errors; the promise only settles when it has.
      void callback(request, response);
      return;
    }
    void (async () => {
      try {
        const details = await provider.interactionDetails(request, response);
        if (details.uid !== interaction[1])
          return sendPage(response, 400, loginPage(details.uid, 'This sign-in page is out of date; try again.'), csp);
        if (!interaction[2] || request.method !== 'POST') return sendPage(response, 200, loginPage(details.uid), csp);
        const form = await readForm(request);
        const account = findAccount(form?.get('email') ?? '');
        if (!account || !passwordMatches(account.password, form?.get('password') ?? '')) {
          return sendPage(response, 401, loginPage(details.uid, 'Wrong email or password.'), csp);
        }
        await provider.interactionFinished(
          request,
          response,
          { login: { accountId: account.email } },
          { mergeWithLastSubmission: false },
        );
      } catch {
        // No or an expired interaction cookie: start again from the console.
        if (!response.headersSent)
          sendPage(
            response,
            400,
            '<!doctype html><title>Sign-in expired</title><p>This sign-in has expired. Start again.</p>',
            csp,
          );
      }
    })();
  });

  return {
    issuer,
    clientId: LOCAL_CLIENT_ID,
    close: () =>
      new Promise((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}

/**
 * More local identities beside the demo admin, for trying a second member (an approver) or an uninvited
 * person: `$DATA_DIR/dev-accounts.json`, `[{ "email", "name", "password" }]`, read at each sign-in.
 * Each signs in only as far as an invitation of its email allows.
 */
export function readDevAccountsFile(dataDir: string): DevAccount[] {
  const file = join(dataDir, 'dev-accounts.json');
  if (!existsSync(file)) return [];
  const parsed = devAccountsSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  return parsed.success ? parsed.data : [];
}

const devAccountsSchema = z.array(z.object({ email: z.email(), name: z.string().min(1), password: z.string().min(8) }));

/**
 * `npm start`'s sign-in: the embedded provider, unless SIGN_IN_ISSUER names another one. Sets the
 * sign-in configuration the functions read, so it must run before shared/config is first read.
 */
export async function startLocalIdentityProvider(
  dataDir: string,
  bootstrapped: () => readonly DevAccount[],
): Promise<EmbeddedOidcProvider | undefined> {
  if (process.env.SIGN_IN_ISSUER) return undefined;
  const publicBaseUrl = trimTrailing(process.env.PUBLIC_BASE_URL ?? '', '/');
  const accounts = () => [...bootstrapped(), ...readDevAccountsFile(dataDir)];
  const provider = await startEmbeddedOidcProvider({
    port: Number(process.env.OIDC_PROVIDER_PORT ?? 0),
    redirectUri: `${publicBaseUrl}/api/auth/callback`,
    accounts,
  });
  process.env.SIGN_IN_ISSUER = provider.issuer;
  process.env.SIGN_IN_CLIENT_ID = provider.clientId;
  return provider;
}
