import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createLogger, type DevicePoll, type LinkedAccount, type Logger, McpToolError } from '@x/mcp-core';
import { requestTarget } from '@x/mcp-core/node';
import type { Keyring } from '../crypto.js';
import { StoreUnavailableError } from '../errors.js';
import type { KvStore } from '../store/kv.js';
import { SealedRecords } from '../store/sealed.js';
import { cookie, readCookie, readForm, sameSecret, sha256 } from './browser.js';
import { connectPath, type LinkedAccounts } from './linked-accounts.js';
import { escapeHtml, sendPage } from './pages.js';

/** How long a link ticket (and the device code behind it) is honoured at most. */
const TICKET_TTL_MS = 10 * 60_000;

export interface ConnectLinkedOptions {
  /** The public origin. */
  issuer: string;
  store: KvStore;
  keyring: Keyring;
  /** The links of one linked-account provider: its declaration names the page and the upstream. */
  links: LinkedAccounts;
  /** The user this browser is signed in as on our authorization server. */
  sessionUser(req: IncomingMessage, res: ServerResponse): Promise<string | undefined>;
  /** Whether the user may use the server now (an active sign-in, not revoked). */
  isActive(userId: string): Promise<boolean>;
  /** The clock (tests). Default `Date.now`. */
  now?: () => number;
  logger?: Logger;
}

/** What the server keeps of a started link, sealed under `ticket:<provider>:<sha256(id)>`. */
interface LinkTicket {
  userId: string;
  deviceCode: string;
  userCode: string;
  verificationUri: string;
  /** sha256 of the browser binding cookie. */
  binding: string;
  /** Epoch ms: the device code's end (at most the ticket's life). */
  expiresAt: number;
}

export interface ConnectLinked {
  /** Serves `/connect/<provider>[/start|/finish|/unlink]`; `false` for other paths. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

/**
 * `/connect/<provider>`: a user signed in to this server (our authorization server's browser
 * session) links their own account of a linked-account provider with its device login (the
 * provider's declared `connection`). Starting it hands the browser a
 * signed, short-lived ticket and sets a cookie only that browser holds; finishing needs the
 * ticket (signed for this user, unexpired, used once) and that cookie, so a link cannot be
 * replayed, counterfeited, or finished from another browser or for another user (account-linking CSRF).
 * The upstream is polled once per user action, so nothing runs in the background and any replica serves
 * any step.
 */
export function createConnectLinked(options: ConnectLinkedOptions): ConnectLinked {
  const { provider, title, describe } = options.links.connection;
  const base = connectPath(provider);
  const now = options.now ?? Date.now;
  const logger = options.logger ?? createLogger(`connect-${provider}`);
  const secure = new URL(options.issuer).protocol === 'https:';
  const sealed = new SealedRecords(options.store, options.keyring);
  const key = options.keyring.deriveKey(`connect-${provider}`);
  const bindingCookie = secure ? `__Host-xmcp-connect-${provider}` : `xmcp-connect-${provider}`;
  const mac = (text: string) => createHmac('sha256', key).update(text).digest('base64url');
  const csrfFor = (userId: string) => mac(`csrf|${userId}`);
  const ticketKey = (id: string) => `ticket:${provider}:${sha256(id)}`;
  const linkedAs = (account: LinkedAccount) => {
    const who = describe(account);
    return `<strong>${escapeHtml(who.name)}</strong> (${escapeHtml(who.detail)})`;
  };

  const signTicket = (id: string, expiresAt: number, userId: string) =>
    `${id}.${expiresAt}.${mac(`ticket|${id}|${expiresAt}|${userId}`)}`;

  function page(res: ServerResponse, status: number, title: string, body: string, headers = {}) {
    sendPage(res, status, title, `<h1>${escapeHtml(title)}</h1>${body}`, headers);
  }

  function refuse(res: ServerResponse, status: number, message: string) {
    page(res, status, `${title} link refused`, `<p>${escapeHtml(message)}</p>${startOver}`);
  }
  const startOver = `<p><a href="${base}">Start again</a></p>`;

  function codePage(res: ServerResponse, ticket: string, record: LinkTicket, note: string, headers = {}) {
    const uri = /^https?:\/\//i.test(record.verificationUri)
      ? `<a href="${escapeHtml(record.verificationUri)}" target="_blank" rel="noopener noreferrer">${escapeHtml(record.verificationUri)}</a>`
      : escapeHtml(record.verificationUri);
    page(
      res,
      200,
      `Link your ${title} account`,
      `${note ? `<p class="warn">${escapeHtml(note)}</p>` : ''}
<p>1. Open ${uri} and sign in to ${escapeHtml(title)}.</p>
<p>2. Enter this code: <strong><code>${escapeHtml(record.userCode)}</code></strong></p>
<p>3. When ${escapeHtml(title)} says the device is approved, come back here:</p>
<form method="post" action="${base}/finish">
<input type="hidden" name="ticket" value="${escapeHtml(ticket)}">
<button type="submit">Finish linking</button>
</form>`,
      headers,
    );
  }

  /** The signed-in, active user of this browser, or a refusal page already sent. */
  async function signedIn(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    const userId = await options.sessionUser(req, res);
    if (!userId) {
      page(
        res,
        401,
        'Sign in first',
        `<p>This browser is not signed in to this server. Connect the server in your MCP client (it opens this browser to sign you in), then open this page again.</p>`,
      );
      return undefined;
    }
    if (!(await options.isActive(userId))) {
      page(
        res,
        403,
        'Sign in again',
        '<p>Your sign-in to this server has ended. Reconnect the server in your MCP client, then open this page again.</p>',
      );
      return undefined;
    }
    return userId;
  }

  /** The signed-in user of a form posted from this server's own page (its CSRF token checked). */
  async function signedInPost(req: IncomingMessage, res: ServerResponse): Promise<string | undefined> {
    const userId = await signedIn(req, res);
    if (!userId) return undefined;
    const form = await readForm(req);
    if (!sameSecret(form.get('csrf'), csrfFor(userId))) {
      refuse(res, 403, 'The form was not sent from this page (CSRF check failed).');
      return undefined;
    }
    return userId;
  }

  async function overview(req: IncomingMessage, res: ServerResponse) {
    const userId = await signedIn(req, res);
    if (!userId) return;
    const link = await options.links.get(userId);
    const csrf = `<input type="hidden" name="csrf" value="${escapeHtml(csrfFor(userId))}">`;
    const name = escapeHtml(title);
    const status = link
      ? `<p>${name} is linked as ${linkedAs(link)}.</p>`
      : `<p>${name} is not linked yet: the ${name} tools answer AUTH_REQUIRED until you link it.</p>`;
    const unlinkForm = link
      ? `<form method="post" action="${base}/unlink">${csrf}<button type="submit">Unlink ${name}</button></form>`
      : '';
    page(
      res,
      200,
      `${title} for your account`,
      `${status}
<p>Link ${link ? 'another' : 'your'} ${name} account with ${name}'s device sign-in:</p>
<form method="post" action="${base}/start">${csrf}<button type="submit">${link ? 'Link again' : `Link ${name}`}</button></form>
${unlinkForm}`,
    );
  }

  async function start(req: IncomingMessage, res: ServerResponse) {
    const userId = await signedInPost(req, res);
    if (!userId) return;
    const device = await options.links.auth.start();
    const id = randomBytes(24).toString('base64url');
    const binding = randomBytes(32).toString('base64url');
    const expiresAt = now() + Math.min(TICKET_TTL_MS, device.expiresIn * 1000);
    const record: LinkTicket = {
      userId,
      deviceCode: device.deviceCode,
      userCode: device.userCode,
      verificationUri: device.verificationUri,
      binding: sha256(binding),
      expiresAt,
    };
    await sealed.set(ticketKey(id), record, { ttlMs: Math.max(1, expiresAt - now()) });
    codePage(res, signTicket(id, expiresAt, userId), record, '', {
      'set-cookie': cookie(bindingCookie, binding, { secure, maxAge: Math.ceil((expiresAt - now()) / 1000) }),
    });
  }

  async function finish(req: IncomingMessage, res: ServerResponse) {
    const userId = await options.sessionUser(req, res);
    if (!userId) {
      refuse(res, 401, 'This browser is not signed in to this server.');
      return;
    }
    const form = await readForm(req);
    const [id = '', expires = '', signature = ''] = (form.get('ticket') ?? '').split('.');
    const expiresAt = Number(expires);
    if (
      !id ||
      !Number.isSafeInteger(expiresAt) ||
      !sameSecret(signature, mac(`ticket|${id}|${expiresAt}|${userId}`))
    ) {
      refuse(res, 400, 'This link ticket is not valid for your sign-in.');
      return;
    }
    if (expiresAt <= now()) {
      refuse(res, 400, 'This link ticket has expired.');
      return;
    }
    const binding = readCookie(req, bindingCookie);
    const entry = await sealed.get<LinkTicket>(ticketKey(id));
    if (!entry) {
      refuse(res, 400, 'This link ticket was already used or has expired.');
      return;
    }
    if (!binding || !sameSecret(sha256(binding), entry.value.binding) || entry.value.userId !== userId) {
      refuse(res, 403, 'This link ticket belongs to another browser. Start again here.');
      return;
    }
    // Single use: whoever consumes it first goes on; a replay finds nothing.
    const record = await sealed.consume<LinkTicket>(ticketKey(id));
    if (!record) {
      refuse(res, 400, 'This link ticket was already used or has expired.');
      return;
    }
    if (!(await options.isActive(userId))) {
      refuse(res, 403, 'Your sign-in to this server has ended. Reconnect the server in your MCP client.');
      return;
    }
    const clear = { 'set-cookie': cookie(bindingCookie, '', { secure, maxAge: 0 }) };
    let result: DevicePoll;
    try {
      result = await options.links.auth.poll(record.deviceCode);
    } catch (error) {
      if (!McpToolError.isInstance(error) || !error.retryable) throw error;
      result = { status: 'pending' };
    }
    if (result.status === 'pending') {
      // Not approved yet (or the upstream is busy): a fresh single-use ticket for the same login.
      const next = randomBytes(24).toString('base64url');
      await sealed.set(ticketKey(next), record, { ttlMs: Math.max(1, record.expiresAt - now()) });
      codePage(
        res,
        signTicket(next, record.expiresAt, userId),
        record,
        `${title} has not approved this sign-in yet. Enter the code at ${title}, then finish again.`,
      );
      return;
    }
    if (result.status === 'refused') {
      const why =
        result.reason === 'access_denied'
          ? `The ${title} sign-in was denied.`
          : result.reason === 'expired_token'
            ? `The ${title} code expired before it was approved.`
            : `${title} refused the sign-in.`;
      page(
        res,
        400,
        `${title} not linked`,
        `<p>${escapeHtml(why)} Nothing was saved.</p>${startOver}`,
        clear,
      );
      return;
    }
    const at = now();
    await options.links.save(userId, { ...result.account, linkedAt: at, updatedAt: at });
    logger.info(`${provider} linked`, { user: userId, account: describe(result.account).detail });
    page(
      res,
      200,
      `${title} linked`,
      `<p>${escapeHtml(title)} is linked as ${linkedAs(result.account)}. Your MCP client's ${escapeHtml(title)} tools work now; you can close this page.</p>`,
      clear,
    );
  }

  async function unlink(req: IncomingMessage, res: ServerResponse) {
    const userId = await signedInPost(req, res);
    if (!userId) return;
    const removed = await options.links.unlink(userId);
    logger.info(`${provider} unlinked`, { user: userId, removed });
    page(
      res,
      200,
      `${title} unlinked`,
      `<p>${escapeHtml(title)} is no longer linked to your account here.</p>${startOver}`,
    );
  }

  return {
    async handle(req, res) {
      const path = requestTarget(req.url)?.pathname;
      if (path === undefined) return false;
      if (path !== base && !path.startsWith(`${base}/`)) return false;
      const step = path.slice(base.length);
      try {
        if (step === '' && req.method === 'GET') await overview(req, res);
        else if (step === '/start' && req.method === 'POST') await start(req, res);
        else if (step === '/finish' && req.method === 'POST') await finish(req, res);
        else if (step === '/unlink' && req.method === 'POST') await unlink(req, res);
        else refuse(res, 405, 'Unsupported request.');
      } catch (error) {
        if (res.headersSent) throw error;
        if (StoreUnavailableError.isInstance(error)) {
          res.writeHead(503, {
            'retry-after': String(error.retryAfterSeconds),
            'content-type': 'text/plain',
          });
          res.end('The server cannot reach its store right now; retry shortly.');
        } else if (McpToolError.isInstance(error)) {
          logger.warn(`${provider} link failed`, { error: error.message });
          page(
            res,
            502,
            `${title} not reachable`,
            `<p>${escapeHtml(error.message)} Nothing was saved.</p>${startOver}`,
          );
        } else throw error;
      }
      return true;
    },
  };
}
