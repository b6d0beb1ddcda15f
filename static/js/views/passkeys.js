// The passkeys page (/passkeys): keep a name (?name=…), sign in as one (?signin=…), and, signed in, the
// name's passkeys (made, last used, remove), a one-time code for another device, sign out here or everywhere;
// on a device not signed in, the code from another device adds this one. Also the kept-name part of a
// player's record. A function of the state: what it fetched is the page's part of it (``ctx.page``).
import * as api from '../api.js';
import { html, nothing } from '../html.js';
import { errorText, t } from '../i18n.js';
import { addDevice, browserRefusal, canKeepNames, keepName, signIn } from '../passkeys.js';
import { formatDate } from './history.js';
import { keepLink, pageLink, playerPath } from './standings-links.js';
import '../i18n-passkeys.js';

export const PASSKEYS_PATH = '/passkeys';
export const signInPath = (name) => `${PASSKEYS_PATH}?signin=${encodeURIComponent(name)}`;

/** Two spellings of one name as far as this page can tell (the server folds look-alikes too). */
const sameName = (a, b) => a.trim().normalize('NFKC').toLowerCase() === b.trim().normalize('NFKC').toLowerCase();

const pageOf = (ctx) => ({ holder: undefined, code: null, busy: false, error: null, done: null, ...ctx.page });

/** Who this browser is signed in as (null: nobody), fetched afresh each visit. */
export async function loadHolder(ctx, actions) {
  const route = ctx.route;
  try {
    const holder = await api.passkeyHolder();
    if (ctx.route === route) actions.setPage({ holder });
  } catch (err) {
    if (ctx.route === route) actions.setPage(err.status === 401 ? { holder: null } : { holder: null, error: errorText(err) });
  }
}

/** Run one step (a ceremony, a removal …): busy meanwhile; its message, or its refusal, in the page's line. */
async function step(ctx, actions, work, done) {
  actions.setPage({ busy: true, error: null, done: null });
  try {
    const answer = await work();
    actions.setPage({ busy: false, done: done(answer), code: null });
    await loadHolder(ctx, actions);
  } catch (err) {
    const own = browserRefusal(err);
    actions.setPage({ busy: false, error: own ? t(`err_${own}`) : errorText(err) });
  }
}

const field = (form, testid) => form.querySelector(`[data-testid=${testid}]`).value.trim();

function holderPanel(ctx, view, actions) {
  const { holder } = view;
  const last = holder.passkeys.length === 1;
  const remove = (key) => step(ctx, actions, () => api.passkeyRemove(key.id), (a) => t(a.claimed ? 'removed_done' : 'freed_done'));
  const showCode = async () => {
    actions.setPage({ busy: true, error: null, done: null });
    try {
      actions.setPage({ busy: false, code: await api.deviceCode() });
    } catch (err) {
      actions.setPage({ busy: false, error: errorText(err) });
    }
  };
  const time = (iso) => (iso ? html`<time datetime=${iso}>${formatDate(iso)}</time>` : t('never_used'));
  const row = (key) => html`<li class="passkey-item" data-testid="passkey-row"><div class="passkey-text"><span class="passkey-label"
    dir="auto">${key.label}</span><span class="hint">${t('col_created')}: ${time(key.created_at)}</span><span class="hint">${
    t('col_last_used')}: ${time(key.last_used_at)}</span></div><button type="button" class="secondary small"
    data-testid=${`remove-passkey-${key.id}`} aria-label=${t('remove_passkey_of', { label: key.label })} ?disabled=${view.busy}
    @click=${() => remove(key)}>${t('remove_passkey')}</button></li>`;
  const code = view.code ? html`<div class="device-code" data-testid="device-code-box"><p>${t('code_explain', { site: location.origin })}</p><p
    class="code" dir="ltr" data-testid="device-code">${view.code.code.slice(0, 4)}-${view.code.code.slice(4)}</p><p class="hint">${
    t('code_expires', { time: formatDate(view.code.expires_at) })}</p></div>` : nothing;
  return html`<section class="panel" aria-labelledby="holder-title" data-testid="passkeys-holder"><h2 id="holder-title"
    data-testid="signed-in-as"><span aria-hidden="true">🔒 </span>${t('signed_in_as', { name: holder.name })}</h2><p>${pageLink(
    playerPath(holder.name), actions, { class: 'player-link', dir: 'auto', testid: 'holder-record' }, t('standings_of',
    { name: holder.name }))}</p><h3>${t('your_passkeys')}</h3><ul class="passkey-list" data-testid="passkey-list">${holder.passkeys.map(row)}</ul>${
    last ? html`<p class="hint">${t('remove_last_note')}</p>` : nothing}<div class="row"><button type="button" class="primary"
    data-testid="show-code" ?disabled=${view.busy} @click=${showCode}>${t('show_code')}</button></div>${code}<div class="row"><button
    type="button" class="secondary" data-testid="sign-out" ?disabled=${view.busy} @click=${() => step(ctx, actions, api.signOut,
    () => t('signed_out_done'))}>${t('sign_out')}</button><button type="button" class="secondary" data-testid="sign-out-everywhere"
    ?disabled=${view.busy} @click=${() => step(ctx, actions, api.signOutEverywhere, () => t('signed_out_everywhere_done'))}>${
    t('sign_out_everywhere')}</button></div></section>`;
}

function keepPanel(ctx, view, actions, name) {
  return html`<section class="panel" aria-labelledby="keep-title" data-testid="keep-panel"><h2 id="keep-title" dir="auto">${
    t('keep_name_of', { name })}</h2><p>${t('keep_explain')}</p><button type="button" class="primary" data-testid="keep-name"
    ?disabled=${view.busy || !canKeepNames()} @click=${() => step(ctx, actions, () => keepName(name),
    (a) => t('kept_done', { name: a.name }))}><span aria-hidden="true">🔒 </span>${t('keep_name')}</button></section>`;
}

function signInPanel(ctx, view, actions, name) {
  const submit = (event) => {
    event.preventDefault();
    const typed = field(event.currentTarget, 'sign-in-name');
    step(ctx, actions, () => signIn(typed), (a) => t('signed_in_done', { name: a.name }));
  };
  return html`<form class="panel" aria-labelledby="sign-in-title" data-testid="sign-in-panel" @submit=${submit}><h2
    id="sign-in-title">${t('sign_in_title')}</h2><p class="hint">${t('sign_in_explain')}</p><div class="field"><label
    for="sign-in-name">${t('name_optional')}</label><input id="sign-in-name" maxlength="64" autocomplete="username webauthn"
    dir="auto" data-testid="sign-in-name" .value=${name ?? ''}></div><button type="submit" class="primary" data-testid="sign-in"
    ?disabled=${view.busy || !canKeepNames()}>${t('sign_in')}</button></form>`;
}

function addDevicePanel(ctx, view, actions) {
  const submit = (event) => {
    event.preventDefault();
    const code = field(event.currentTarget, 'enter-code');
    step(ctx, actions, () => addDevice(code), (a) => t('signed_in_done', { name: a.name }));
  };
  return html`<form class="panel" aria-labelledby="add-device-title" data-testid="add-device-panel" @submit=${submit}><h2
    id="add-device-title">${t('add_device_title')}</h2><p class="hint">${t('add_device_explain')}</p><div class="field"><label
    for="enter-code">${t('device_code')}</label><input id="enter-code" maxlength="12" autocomplete="one-time-code" dir="ltr"
    autocapitalize="characters" spellcheck="false" data-testid="enter-code" required></div><button type="submit" class="primary"
    data-testid="add-device" ?disabled=${view.busy || !canKeepNames()}>${t('add_device')}</button></form>`;
}

/** The passkeys page, as the state has it. */
export function passkeysTemplate(ctx, actions) {
  const view = pageOf(ctx);
  const { keep, signin } = ctx.route;
  const holder = view.holder;
  let body;
  if (holder === undefined) body = html`<p class="loading" role="status">${t('loading')}</p>`;
  else if (holder) {
    body = html`${keep && !sameName(keep, holder.name) ? keepPanel(ctx, view, actions, keep) : nothing}${holderPanel(ctx, view, actions)}`;
  } else {
    body = html`${keep ? keepPanel(ctx, view, actions, keep) : nothing}${signInPanel(ctx, view, actions, signin)}${addDevicePanel(ctx,
      view, actions)}`;
  }
  return html`<div class="standings passkeys" data-testid="passkeys-page" aria-busy=${view.busy ? 'true' : nothing}><div
    class="page-head"><h1>${t('passkeys_title')}</h1></div>${canKeepNames() ? nothing : html`<p class="error" role="alert"
    data-testid="passkeys-insecure">${t('needs_https')}</p>`}<p class="status-line" role="status" data-testid="passkeys-status">${
    view.done ?? ''}</p>${view.error ? html`<p class="error" role="alert" data-testid="passkeys-error">${view.error}</p>` : nothing}<div
    class="passkeys-grid">${body}</div></div>`;
}

/** On a player's record: kept or not, and the way to keep it, or to sign in as it. */
export function keptPart(record, holder, actions) {
  if (record.claimed && holder?.name && sameName(holder.name, record.name)) {
    return html`<p class="kept-note" data-testid="kept-yours"><span aria-hidden="true">🔒 </span>${t('kept_yours')} ${pageLink(PASSKEYS_PATH,
      actions, { class: 'link', testid: 'passkeys-link' }, t('passkeys_link'))}</p>`;
  }
  if (record.claimed) {
    return html`<p class="kept-note" data-testid="kept-note"><span aria-hidden="true">🔒 </span>${t('kept_by_passkey')} ${pageLink(
      signInPath(record.name), actions, { class: 'link', testid: 'sign-in-as' }, t('sign_in_as', { name: record.name }))}</p>`;
  }
  return html`<p class="kept-note">${keepLink(record.name, actions, 'secondary small')}</p>`;
}
