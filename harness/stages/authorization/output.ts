// Stage 7's output read against its contract: what the client found and decided.
import { json, object, optional, type Reader } from '../reading.ts';
import type { AuthorizationOutput } from './contract.ts';

export type AuthorizationPart = Partial<Pick<AuthorizationOutput, 'authorization'>>;

export const authorizationPart = object({ authorization: optional(json) }) satisfies Reader<AuthorizationPart>;
