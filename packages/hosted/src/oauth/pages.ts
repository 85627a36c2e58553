import type { ServerResponse } from 'node:http';

/**
 * Headers of every page: no framing (clickjacking), no caching, no scripts, no referrer to other
 * sites (`same-origin`, not `no-referrer`: with that, browsers send `Origin: null` on the form
 * POST, which the server's Origin check refuses).
 */
export const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' https: http://127.0.0.1:* http://localhost:*; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
  'referrer-policy': 'same-origin',
  'x-content-type-options': 'nosniff',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;line-height:1.5}
.warn{background:#fff4d6;padding:.5rem .75rem;border-radius:.25rem}button{font-size:1rem;padding:.4rem 1rem;margin-right:.5rem}</style>
</head><body>${body}</body></html>
`;
}

export function sendPage(
  res: ServerResponse,
  status: number,
  title: string,
  body: string,
  headers = {},
): void {
  const html = layout(title, body);
  res.writeHead(status, { ...PAGE_HEADERS, ...headers, 'content-length': Buffer.byteLength(html) });
  res.end(html);
}

export function sendError(res: ServerResponse, status: number, message: string): void {
  sendPage(res, status, 'Sign-in failed', `<h1>Sign-in failed</h1><p>${escapeHtml(message)}</p>`);
}

export interface ConsentView {
  action: string;
  csrf: string;
  serverName: string;
  clientName: string;
  /** The host the client's redirect URI points at. */
  redirectHost: string;
  /** Loopback redirect: a program on the user's machine, not a web service. */
  loopback: boolean;
  /** What the client asks for: read tools only, or every tool (read and write). */
  access: 'read' | 'write';
  /** Whether it stays connected (it gets refresh tokens). */
  offline: boolean;
  /** Whether the person may grant read only (the client asks for write and for `mcp:read`). */
  readOnlyChoice: boolean;
  /** The upstream sign-in's name (the provider's declared `title`). */
  upstream: string;
  /** What read and write access let a client do there, in words (the provider's declared `access`). */
  accessWords: { read: string; write: string };
}

/** What a client that stays connected may do, in words (the consent page lists it). */
export const OFFLINE_WORDS = 'stay connected until you revoke it, without asking you again';

export function consentPage(view: ConsentView): string {
  const warning = view.loopback
    ? '<p class="warn">This client receives the result on your own computer (a local redirect). Approve only if you started this connection yourself.</p>'
    : '';
  const asks = [
    view.accessWords.read,
    ...(view.access === 'write' ? [view.accessWords.write] : []),
    ...(view.offline ? [OFFLINE_WORDS] : []),
  ];
  const approve =
    view.access === 'write'
      ? `<button type="submit" name="decision" value="approve">Allow read and write</button>
${view.readOnlyChoice ? '<button type="submit" name="decision" value="read">Allow read only</button>\n' : ''}`
      : '<button type="submit" name="decision" value="approve">Allow</button>\n';
  return `<h1>Connect ${escapeHtml(view.clientName)}?</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> wants to use <strong>${escapeHtml(view.serverName)}</strong> on your behalf. It asks to:</p>
<ul>
${asks.map((words) => `<li>${escapeHtml(words)}</li>`).join('\n')}
</ul>
${view.readOnlyChoice ? `<p>With <em>Allow read only</em> it can read but not change anything; it may ask you again when it needs to.</p>\n` : ''}<p>After you approve, you sign in with ${escapeHtml(view.upstream)} and are sent back to <strong>${escapeHtml(view.redirectHost)}</strong>.</p>
${warning}
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${approve}<button type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

export function accountPickerPage(view: {
  /** The upstream sign-in's name. */
  upstream: string;
  action: string;
  csrf: string;
  accounts: ReadonlyArray<{ id: string; name: string }>;
}): string {
  const choices = view.accounts
    .map(
      (account) =>
        `<p><button type="submit" name="account" value="${escapeHtml(account.id)}">${escapeHtml(account.name)} (${escapeHtml(account.id)})</button></p>`,
    )
    .join('\n');
  return `<h1>Choose a ${escapeHtml(view.upstream)} account</h1>
<p>Your ${escapeHtml(view.upstream)} login has several accounts. Which one should this connection use?</p>
<form method="post" action="${escapeHtml(view.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
${choices}
</form>`;
}
