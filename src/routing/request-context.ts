/**
 * What the route kit adds to a Fastify request and a route's config: the API key's account
 * (`src/http/auth.ts` sets it), the Idempotency-Key claim (`src/http/idempotency.ts`), and the
 * per-route switches those hooks read.
 */
export interface AuthContext {
  accountId: string;
  keyId: string;
  /** The key's account is an admin (`src/http/auth.ts` refuses admin routes to the others). */
  isAdmin?: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth?: AuthContext;
    idempotency?: { accountId: string; key: string; claimId: string; settled: boolean };
  }
  interface FastifyContextConfig {
    auth?: 'apiKey' | 'none';
    rateBucket?: 'poll';
    /** The route creates something: it honours the Idempotency-Key header. */
    idempotent?: boolean;
    /** Only admin accounts' keys reach the route (403 ADMIN_REQUIRED). */
    admin?: boolean;
  }
}
