import { Controller, Inject, Post, Req, Res, type OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { createHash } from 'node:crypto';
import { SessionAbsentError, SessionExpiredError, SessionUnknownError } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { Authenticator } from '../auth/authenticator.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { serveEventStream } from '../http/event-stream.js';
import { CommittedEvents } from '../provenance/log-stream.js';
import { ReadLog } from '../provenance/read-log.js';
import { ReadWorlds } from '../provenance/read-worlds.js';
import {
  AGUI_BODY_MAX_BYTES,
  AGUI_MAX_STREAMS,
  AGUI_MAX_STREAMS_PER_CREDENTIAL,
  AGUI_RETRY_AFTER_S,
  parseAguiInput,
  runAgui,
} from './agui.js';
import { WorkbenchController } from './workbench.controller.js';

/**
 * `POST /agui` (agui.ts): the caller is the workbench's login cookie or an
 * `Authorization: Bearer` credential, same reads as GET /v1/log. Open streams end when the
 * gateway stops.
 */
@Controller()
export class AguiController implements OnModuleDestroy {
  private readonly events: CommittedEvents;
  private readonly open = new Set<AbortController>();
  /** streams admitted and not yet ended (open or still starting) */
  private admitted = 0;
  /** per credential (sha256 of its Authorization header): its streams admitted */
  private readonly perCredential = new Map<string, number>();

  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly worlds: ReadWorlds,
    private readonly log: ReadLog,
    @Inject(WorkbenchController) private readonly workbench: WorkbenchController,
    private readonly auth: Authenticator,
  ) {
    this.events = new CommittedEvents(rpc);
  }

  @Post('agui')
  async agui(@Req() req: Request, @Res() res: Response): Promise<void> {
    // Admitted synchronously (no await between the check and the count), so a burst admits
    // exactly AGUI_MAX_STREAMS; the slot is held from here until the stream ends.
    if (this.admitted >= AGUI_MAX_STREAMS)
      return full(res, `${AGUI_MAX_STREAMS} AG-UI streams are open; retry later`);
    this.admitted += 1;
    let holder: string | undefined;
    try {
      const viewer = await this.workbench.viewer(req);
      if (viewer === null) {
        // a credential that was given but does not read is named as such (unknown, expired)
        if (req.headers.authorization !== undefined)
          await this.auth.reader(req.headers.authorization);
        throw new SessionAbsentError();
      }
      // the operator's share is the whole gateway's; each session (or the public reads) has one
      const key = viewer.operator
        ? 'operator'
        : createHash('sha256')
            .update(viewer.authorization ?? 'public reads')
            .digest('hex');
      const held = this.perCredential.get(key) ?? 0;
      if (!viewer.operator && held >= AGUI_MAX_STREAMS_PER_CREDENTIAL)
        return full(
          res,
          `this credential has ${AGUI_MAX_STREAMS_PER_CREDENTIAL} AG-UI streams open; retry later`,
        );
      this.perCredential.set(key, held + 1);
      holder = key;
      const body = parseJsonObject(await readBody(req, AGUI_BODY_MAX_BYTES));
      const head = await this.worlds.head().then(
        async (ref) =>
          (await this.rpc.request('ledger.world.get', { ref }, { timeoutMs: 5000 })).revision,
        () => -1,
      );
      const start = parseAguiInput(body, head);
      const options = this.settings.agui ?? {};
      await serveEventStream(req, res, this.open, (signal, sink) =>
        runAgui({
          log: this.log,
          events: this.events,
          scope: viewer.scope,
          start,
          signal,
          runMs: options.runMs,
          heartbeatMs: options.heartbeatMs,
          sink,
          credential: () => this.ended(viewer.authorization),
        }),
      );
    } finally {
      this.admitted -= 1;
      if (holder !== undefined) {
        const left = (this.perCredential.get(holder) ?? 1) - 1;
        if (left === 0) this.perCredential.delete(holder);
        else this.perCredential.set(holder, left);
      }
    }
  }

  /**
   * Why a stream's credential no longer reads: the session's revocation or expiry text
   * (world-spec §2.2), or null while it reads — and null when the broker does not answer (the
   * stream is not cut for an outage it cannot judge).
   */
  private async ended(authorization: string | undefined): Promise<string | null> {
    if (authorization === undefined) return null;
    try {
      await this.auth.reader(authorization);
      return null;
    } catch (err) {
      if (err instanceof SessionUnknownError || err instanceof SessionExpiredError)
        return `the credential no longer reads: ${err.message}`;
      return null;
    }
  }

  onModuleDestroy(): void {
    for (const stop of this.open) stop.abort();
    this.events.close();
  }
}

/** 503 with Retry-After (RFC 9110 §10.2.3): the stream bounds are full. */
function full(res: Response, message: string): void {
  res.setHeader('Retry-After', String(AGUI_RETRY_AFTER_S));
  res.status(503).json({ error: { class: 'Unavailable', message } });
}
