/** Browser sign-in routes (docs/sign-in.md): public, they set and clear the session cookie. */
import * as z from 'zod';

export const signInStartQuery = z.object({
  /** A path on this origin to land on after sign-in (default SIGN_IN_RETURN_PATH, `/`). */
  returnTo: z.string().max(2048).optional(),
  /** For an email invited to several teams: which one to sign in to (default: the first). */
  team: z.uuid().optional(),
});

const param = z.string().max(4096).optional();
/**
 * What providers put on the redirect: the code flow's parameters (RFC 6749 §4.1.2, RFC 9207 `iss`),
 * Entra ID's `session_state`, and Google's `scope`, `authuser`, `hd`, `prompt`. Query schemas are strict,
 * so a provider adding another parameter would be told 422; these are the ones the supported providers send.
 */
export const signInCallbackQuery = z.object({
  code: param,
  state: param,
  iss: param,
  error: param,
  error_description: param,
  error_uri: param,
  session_state: param,
  scope: param,
  authuser: param,
  hd: param,
  prompt: param,
});
