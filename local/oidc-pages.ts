/** The local OpenID provider's sign-in and sign-up pages (local/oidc-provider.ts): plain forms, every value escaped. */
import { escapeHtml } from '../lib/web/html.js';
import { MIN_PASSWORD_LENGTH } from './oidc-accounts.js';

export interface InteractionView {
  uid: string;
  mode: 'sign-in' | 'sign-up';
  email?: string;
  error?: string;
  /** The page cannot go on (expired interaction): no form, only the message. */
  expired?: boolean;
}

const STYLE = `body{font-family:system-ui,sans-serif;background:#eef1f6;color:#1d2330;margin:0;display:flex;min-height:100vh;align-items:center;justify-content:center}
main{background:#fff;border:1px solid #d9dee8;border-radius:12px;padding:2rem;width:min(26rem,92vw);box-shadow:0 4px 18px rgba(0,0,0,.06)}
h1{font-size:1.35rem;margin:0 0 .25rem}.sub{color:#5b6478;margin:0 0 1.25rem;font-size:.9rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}input{font:inherit;width:100%;box-sizing:border-box;padding:.55rem .6rem;border:1px solid #b7bfce;border-radius:6px}
button{font:inherit;margin-top:1.25rem;width:100%;padding:.6rem;border-radius:6px;border:1px solid #2450d8;background:#2450d8;color:#fff;cursor:pointer}
:focus-visible{outline:3px solid #ffb300;outline-offset:2px}.error{background:#fdeceb;border-left:4px solid #b3261e;padding:.6rem .8rem;border-radius:4px}
.switch{margin-top:1rem;font-size:.9rem}.hint{color:#5b6478;font-size:.85rem;margin:.25rem 0 0}`;

/** `iconOrigin`: the settings app's origin, whose favicon the page shows. */
export function interactionPage(view: InteractionView, iconOrigin?: string): string {
  const signUp = view.mode === 'sign-up';
  const title = signUp ? 'Create your account' : 'Sign in';
  const uid = encodeURIComponent(view.uid);
  const error = view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : '';
  const form = view.expired
    ? ''
    : `<form method="post" action="/interaction/${uid}/${view.mode}">
<label for="email">E-mail</label><input id="email" name="email" type="email" autocomplete="email" required value="${escapeHtml(view.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="${signUp ? 'new-password' : 'current-password'}" required${signUp ? ` minlength="${MIN_PASSWORD_LENGTH}" aria-describedby="password-hint"` : ''}>
${signUp ? `<p class="hint" id="password-hint">At least ${MIN_PASSWORD_LENGTH} characters.</p><label for="confirm">Repeat the password</label><input id="confirm" name="confirm" type="password" autocomplete="new-password" required>` : ''}
<button type="submit">${signUp ? 'Create account' : 'Sign in'}</button>
</form>
<p class="switch">${signUp ? `Already have an account? <a href="/interaction/${uid}/sign-in">Sign in</a>` : `New here? <a href="/interaction/${uid}/sign-up">Create an account</a>`}</p>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Social Publishing</title>${iconOrigin ? `<link rel="icon" href="${escapeHtml(iconOrigin)}/settings/static/favicon.svg" type="image/svg+xml">` : ''}<style>${STYLE}</style></head>
<body><main><h1>${title}</h1><p class="sub">${signUp ? 'One account for your API keys, connected accounts and posts.' : 'Social Publishing: your API keys, connected accounts and posts.'}</p>${error}${form}</main></body></html>`;
}
