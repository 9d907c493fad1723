// Stage 2's output read against its contract: the `initialize` outcome, and `closed`, which every
// command that talks to a server over stdio prints (the stage's hints read them in later outputs too).
import { json, literal, object, optional, type Reader } from '../reading.ts';
import type { HandshakeOutput } from './contract.ts';

export type HandshakePart = Partial<HandshakeOutput>;

export const handshakePart = object({ initialize: optional(json), closed: optional(literal(false)) }) satisfies Reader<HandshakePart>;
