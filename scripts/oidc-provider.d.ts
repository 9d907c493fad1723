// The part of oidc-provider (a devDependency that ships no types) that scripts/oidc-gateway.ts uses,
// as its documentation describes it. The Koa context oidc-provider passes its callbacks is not read
// by the gateway: `unknown` here.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** A client's metadata (RFC 7591 2), as registered. */
  interface ClientMetadata {
    client_id: string;
    [field: string]: unknown;
  }

  /** A feature's switch and its options. */
  interface Feature {
    enabled: boolean;
    [option: string]: unknown;
  }

  interface Account {
    accountId: string;
    claims(): Record<string, unknown>;
  }

  interface Configuration {
    clients?: ClientMetadata[];
    scopes?: string[];
    extraClientMetadata?: {
      properties: string[];
      validator?(ctx: unknown, key: string, value: unknown, metadata: Record<string, unknown>): void;
    };
    pkce?: { required?(ctx: unknown, client: unknown): boolean };
    cookies?: { keys: string[] };
    features?: Record<string, Feature>;
    fetch?(url: string | URL, options: RequestInit): Promise<Response>;
    interactions?: { url?(ctx: unknown, interaction: { uid: string }): string };
    issueRefreshToken?(ctx: unknown, client: { grantTypeAllowed(type: string): boolean }, code: unknown): boolean;
    findAccount?(ctx: unknown, id: string): Account | undefined | Promise<Account | undefined>;
  }

  interface Interaction {
    uid: string;
    params: Record<string, unknown>;
    prompt: { name: string; details: Record<string, unknown> };
  }

  interface InteractionResult {
    login?: { accountId: string };
    consent?: { grantId?: string };
  }

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    /** Saves the grant; resolves with its id. */
    save(): Promise<string>;
    destroy(): Promise<void>;
  }

  interface AccessToken {
    grantId?: string;
  }

  export default class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly Grant: typeof Grant;
    readonly AccessToken: { find(token: string): Promise<AccessToken | undefined> };
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResult, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
