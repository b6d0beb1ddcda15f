// Names kept with passkeys: the browser's side of the WebAuthn ceremonies (the server's JSON options to
// navigator.credentials.create/get and the credential back as JSON, base64url both ways) and the REST calls.
import * as api from './api.js';

/** Whether this page may make or use a passkey: https, or http on localhost (a secure context). */
export const canKeepNames = () => window.isSecureContext === true && 'credentials' in navigator && typeof window.PublicKeyCredential === 'function';

const toBytes = (text) => {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer;
};
const toText = (buffer) => {
  let binary = '';
  for (const byte of new Uint8Array(buffer)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};
const withIds = (list) => (list ?? []).map((c) => ({ ...c, id: toBytes(c.id) }));

function creation(publicKey) {
  return { ...publicKey, challenge: toBytes(publicKey.challenge), user: { ...publicKey.user, id: toBytes(publicKey.user.id) },
    excludeCredentials: withIds(publicKey.excludeCredentials) };
}

function request(publicKey) {
  return { ...publicKey, challenge: toBytes(publicKey.challenge), allowCredentials: withIds(publicKey.allowCredentials) };
}

/** A PublicKeyCredential as the server reads it (toJSON() where the browser has it). */
function asJson(credential) {
  const r = credential.response;
  const response = r.attestationObject
    ? { clientDataJSON: toText(r.clientDataJSON), attestationObject: toText(r.attestationObject), transports: r.getTransports?.() ?? [] }
    : { clientDataJSON: toText(r.clientDataJSON), authenticatorData: toText(r.authenticatorData), signature: toText(r.signature),
      userHandle: r.userHandle ? toText(r.userHandle) : null };
  return { id: credential.id, rawId: toText(credential.rawId), type: credential.type, response,
    authenticatorAttachment: credential.authenticatorAttachment ?? null, clientExtensionResults: credential.getClientExtensionResults?.() ?? {} };
}

/** What this device is called in its holder's list of passkeys (the server says "passkey N" otherwise). */
function deviceLabel() {
  const platform = navigator.userAgentData?.platform || navigator.platform || '';
  const mobile = navigator.userAgentData?.mobile ?? /Mobi|Android|iPhone/.test(navigator.userAgent);
  const known = ['Android', 'iPhone', 'iPad', 'Mac', 'Windows', 'Linux', 'Chrome OS'].find((p) => platform.includes(p)
    || (p === 'Mac' && platform.startsWith('Mac')) || (p === 'Windows' && platform.startsWith('Win')));
  if (!known) return null;
  return mobile && !['Android', 'iPhone', 'iPad'].includes(known) ? `${known} (phone)` : known;
}

async function register(options) {
  const credential = await navigator.credentials.create({ publicKey: creation(options.publicKey) });
  return api.passkeyRegister({ credential: asJson(credential), label: deviceLabel() });
}

/** Keep ``name``: this device makes a passkey for it; the browser is then signed in as it. */
export async function keepName(name) {
  return register(await api.passkeyClaimOptions(name));
}

/** Add this device's own passkey to the name whose signed-in device shows ``code``. */
export async function addDevice(code) {
  return register(await api.passkeyAddOptions(code));
}

/** Sign in as ``name`` (empty: whichever kept name the passkey the browser offers keeps). */
export async function signIn(name) {
  const options = await api.passkeySignInOptions(name || null);
  const credential = await navigator.credentials.get({ publicKey: request(options.publicKey) });
  return api.passkeySignIn({ credential: asJson(credential) });
}

/** A refusal of the browser's own (the person closed the prompt, no authenticator): null if it is the server's. */
export function browserRefusal(err) {
  if (err instanceof api.ApiError) return null;
  return err?.name === 'NotAllowedError' || err?.name === 'AbortError' ? 'passkey_cancelled' : 'passkey_failed';
}
