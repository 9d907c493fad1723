// Stage 7's contract: `authorization` reads calls.json and registrations.json, and prints what the
// client found and decided, the handshake, every tool, each call's outcome and what it keeps.
import type { Json, Outcome } from '../contract.ts';

/** A registration kept from an earlier run, as its registration response said (RFC 7591 3.2.1). */
export interface Registration {
  client_id: string;
  [field: string]: Json;
}
/** registrations.json: the registrations kept, by issuer (one on the server's origin as its path). */
export type RegistrationsInput = Record<string, Registration>;

export interface AuthorizationOutput {
  /** What the client found and decided (the student's OAuthClient.found), its URLs as paths on the
   *  server's origin; null where it found nothing. */
  authorization: Json;
  initialize?: Outcome;
  tools?: Outcome;
  calls?: Outcome[];
  /** The issuers the client keeps a registration for after the run, sorted. */
  registrations: Json[];
}
