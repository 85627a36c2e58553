import { SignIn } from '@x/mcp-core';
import type { ResolvedSettings } from '../settings.js';
import { LoginError, startLogin } from './login.js';

/**
 * Sign-in from the agent for the login file of `settings`: the device login of `forge-mcp login`
 * (Forge's verification page, the code to enter shown with it), polled here, saving the same file
 * the same way. It ends when the code is approved, denied or expires.
 */
export function forgeSignIn(settings: ResolvedSettings): SignIn {
  // One per login file in this process: calls that need it at the same time share one flow.
  return SignIn.shared(settings.configPath, {
    id: 'forge',
    start: async () => {
      const started = await startLogin({
        apiUrl: settings.apiUrl,
        configPath: settings.configPath,
        fetch: settings.fetch,
        timeoutMs: settings.timeoutMs,
        env: {},
        // Nothing goes to stdout or stderr: over stdio, the agent shows the page.
        write: () => {},
      });
      if (!/^https?:\/\//i.test(started.verificationUri) || !URL.canParse(started.verificationUri)) {
        started.cancel();
        throw new LoginError(
          'Forge answered the login request with a verification address that is not a web page.',
        );
      }
      return {
        url: started.verificationUri,
        message: `Sign in to Forge to let forge-mcp use it: on Forge's page, enter the code ${started.userCode}. The call goes on once you approve.`,
        done: started.result,
        cancel: started.cancel,
      };
    },
  });
}
