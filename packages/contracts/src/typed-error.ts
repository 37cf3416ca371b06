/**
 * The one normaliser of thrown values: what every edge (the gateway's error table, the services'
 * RPC exception filter) makes of an exception before it answers (CONVENTIONS.md "Errors").
 */
import {
  InvalidBase64Error,
  InvalidEnvelopeError,
  InvalidRefError,
  ObjectHashMismatchError,
} from '@world/canonical';
import { BadRequestError, WorldError } from './errors.js';

/**
 * The typed error a thrown value stands for: a WorldError as it is; a canonical-encoding refusal
 * (a bad ref or base64, an object whose hash or envelope is wrong) as the caller's BadRequest
 * with the same message; undefined for anything untyped, which each edge answers as Internal
 * after logging it — its text is never sent (world-spec §5.1, §6.3, §6.5).
 */
export function typedErrorOf(err: unknown): WorldError | undefined {
  if (err instanceof WorldError) return err;
  if (
    err instanceof InvalidRefError ||
    err instanceof InvalidBase64Error ||
    err instanceof ObjectHashMismatchError ||
    err instanceof InvalidEnvelopeError
  )
    return new BadRequestError(err.message);
  return undefined;
}
