/**
 * The transparency-log reads of the CLI (README "Verifying the log"), over the gateway: the
 * verifier key, the latest signed checkpoint and the RFC 9162 proofs (hashes decoded from base64).
 * Nothing here trusts what it reads: callers verify signatures and proofs with @world/tlog.
 */
import { decodeBase64 } from '@world/canonical';
import type { GatewayClient } from '../client/http.js';

/** A consistency proof as GET /v1/proof/consistency serves it, decoded. */
export interface ConsistencyAnswer {
  from: number;
  to: number;
  fromRoot: Buffer;
  toRoot: Buffer;
  hashes: Buffer[];
}

/** An inclusion proof as GET /v1/proof/inclusion serves it, decoded. */
export interface InclusionAnswer {
  index: number;
  size: number;
  leafHash: Buffer;
  rootHash: Buffer;
  hashes: Buffer[];
}

const hash = (text: string) => decodeBase64(text, 'tree hash');

/** The tlog routes of one gateway. */
export class LogReads {
  constructor(private readonly client: GatewayClient) {}

  /** GET /.well-known/world-log-key: the vkey line. */
  async key(): Promise<string> {
    return (await this.client.text('/.well-known/world-log-key')).trim();
  }

  /** GET /v1/checkpoint: the signed note, verbatim. */
  checkpoint(): Promise<string> {
    return this.client.text('/v1/checkpoint');
  }

  async inclusion(index: number, size: number): Promise<InclusionAnswer> {
    const p = await this.client.get<{
      index: number;
      size: number;
      leafHash: string;
      rootHash: string;
      hashes: string[];
    }>(`/v1/proof/inclusion?index=${index}&size=${size}`);
    return {
      ...p,
      leafHash: hash(p.leafHash),
      rootHash: hash(p.rootHash),
      hashes: p.hashes.map(hash),
    };
  }

  async consistency(from: number, to: number): Promise<ConsistencyAnswer> {
    const p = await this.client.get<{
      from: number;
      to: number;
      fromRoot: string;
      toRoot: string;
      hashes: string[];
    }>(`/v1/proof/consistency?from=${from}&to=${to}`);
    return { ...p, fromRoot: hash(p.fromRoot), toRoot: hash(p.toRoot), hashes: p.hashes.map(hash) };
  }
}
