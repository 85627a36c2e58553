import { SignIn } from '@x/mcp-core';
import type { ResolvedSettings } from '../settings.js';
import { startLogin } from './login.js';
import { readLogin } from './token-file.js';

/**
 * Sign-in from the agent for the login file of `settings`: the flow of `basecamp-mcp login`
 * (Launchpad's authorization page, the registered redirect served on 127.0.0.1, `state` checked),
 * saving the same file the same way. The OAuth app is the environment's, else the one the old
 * login saved. Several Basecamp accounts need `BASECAMP_ACCOUNT_ID` (nobody can be asked which).
 */
export function basecampSignIn(settings: ResolvedSettings): SignIn {
  // One per login file in this process: calls that need it at the same time share one flow.
  return SignIn.shared(settings.tokenFile, {
    id: 'basecamp',
    start: async () => {
      const saved = await readLogin(settings.tokenFile).catch(() => undefined);
      const clientId = settings.clientId ?? saved?.clientId;
      const clientSecret = settings.clientSecret ?? saved?.clientSecret;
      const started = await startLogin({
        from: 'agent',
        env: { BASECAMP_REDIRECT_URI: settings.redirectUri },
        ...(clientId ? { clientId } : {}),
        ...(clientSecret ? { clientSecret } : {}),
        launchpadUrl: settings.launchpadUrl,
        tokenFile: settings.tokenFile,
        fetch: settings.fetch,
        timeoutMs: settings.timeoutMs,
        waitMs: settings.signInWaitMs,
        ...(settings.accountId ? { accountId: settings.accountId } : {}),
        // Nothing goes to stdout or stderr: over stdio, the agent shows the page.
        write: () => {},
      });
      return {
        url: started.authorizeUrl,
        message:
          "Sign in to Basecamp to let basecamp-mcp use it. The page is Basecamp's (Launchpad); after you allow access it sends you back to this computer and the call goes on.",
        done: started.result,
        cancel: started.cancel,
      };
    },
  });
}
