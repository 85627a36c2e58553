// The part of oidc-provider 9.13.3 (no bundled types) this package uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface KoaContext {
    method: string;
    path: string;
    status: number;
    body: unknown;
    state: Record<string, unknown>;
    set(name: string, value: string): void;
    oidc?: OidcContext;
  }

  /** `ctx.oidc` while an authorization request is served (what `loadExistingGrant` reads). */
  export interface OidcContext {
    client?: OidcClient;
    params?: Record<string, unknown>;
    provider?: Provider;
    session?: { grantIdFor(clientId: string): string | undefined };
    result?: InteractionResult;
    resourceServers?: Record<string, unknown>;
  }

  export interface OidcClient {
    clientId: string;
    clientName?: string;
    redirectUris: string[];
    tokenEndpointAuthMethod: string;
    /** The scopes the client registered (space-separated); absent: any. */
    scope?: string;
    grantTypeAllowed(type: string): boolean;
  }

  export interface InteractionDetails {
    uid: string;
    prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    params: Record<string, string | undefined>;
    session?: { accountId: string; uid: string };
    grantId?: string;
    lastSubmission?: Record<string, unknown>;
  }

  export interface InteractionResult {
    login?: { accountId: string; remember?: boolean };
    consent?: { grantId: string };
    error?: string;
    error_description?: string;
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    rejectOIDCScope(scope: string): void;
    getRejectedOIDCScope(): string;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    getRejectedResourceScope(resource: string): string;
    save(): Promise<string>;
  }

  export const errors: Record<string, new (description?: string) => Error>;

  export default class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    readonly Grant: typeof Grant;
    readonly Client: { find(id: string): Promise<OidcClient | undefined> };
    readonly Session: {
      get(ctx: {
        req: IncomingMessage;
        res: ServerResponse;
        secure: boolean;
      }): Promise<{ accountId?: string }>;
    };
    proxy: boolean;
    callback(): (request: IncomingMessage, response: ServerResponse) => void;
    use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
    on(event: string, listener: (...args: never[]) => void): void;
    interactionDetails(request: IncomingMessage, response: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(
      request: IncomingMessage,
      response: ServerResponse,
      result: InteractionResult,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
