/**
 * The transparency-log reads of the gateway: the verifier key, the latest signed
 * checkpoint and the RFC 9162 proofs, relayed from the ledger. Tree hashes and headers are the
 * skeleton every session may read (contracts visibility.ts); no payload is involved.
 */
import { Inject, Injectable } from '@nestjs/common';
import { READ_DEADLINE_MS, type ReplyOf } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { parseNonNegative, type QueryValue } from './paging.js';

const deadline = { timeoutMs: READ_DEADLINE_MS };

/** The ledger's transparency log as `/v1` and `/.well-known/world-log-key` serve it. */
@Injectable()
export class ReadTlog {
  constructor(@Inject(RPC) private readonly rpc: RpcClient) {}

  /** GET /.well-known/world-log-key: the C2SP signed-note verifier key, one line. */
  async key(): Promise<string> {
    const { vkey } = await this.rpc.request('ledger.tlog.key', {}, deadline);
    return `${vkey}\n`;
  }

  /** GET /v1/checkpoint: the latest signed checkpoint note, verbatim (C2SP tlog-checkpoint). */
  async checkpoint(): Promise<string> {
    const { note } = await this.rpc.request('ledger.tlog.checkpoint', {}, deadline);
    return note;
  }

  /**
   * GET /v1/proof/inclusion?index=I&size=N (RFC 9162 §2.1.3).
   * @throws BadRequestError `index must be a non-negative integer` / `size must be …`, and the
   *   ledger's `leaf index I is not below tree size N` / `tree size N is larger than the log's tree size M`
   */
  inclusion(index: QueryValue, size: QueryValue): Promise<ReplyOf<'ledger.tlog.inclusion'>> {
    const request = {
      index: parseNonNegative(index, 'index must be a non-negative integer'),
      size: parseNonNegative(size, 'size must be a non-negative integer'),
    };
    return this.rpc.request('ledger.tlog.inclusion', request, deadline);
  }

  /**
   * GET /v1/proof/consistency?from=M&to=N (RFC 9162 §2.1.4).
   * @throws BadRequestError `from must be …` / `to must be …`, and the ledger's
   *   `old tree size M is larger than new tree size N` / `tree size N is larger than the log's …`
   */
  consistency(from: QueryValue, to: QueryValue): Promise<ReplyOf<'ledger.tlog.consistency'>> {
    const request = {
      from: parseNonNegative(from, 'from must be a non-negative integer'),
      to: parseNonNegative(to, 'to must be a non-negative integer'),
    };
    return this.rpc.request('ledger.tlog.consistency', request, deadline);
  }
}
