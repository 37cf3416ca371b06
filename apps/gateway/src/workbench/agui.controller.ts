import { Controller, Inject, Post, Req, Res, type OnModuleDestroy } from '@nestjs/common';
import type { Request, Response } from 'express';
import { SessionAbsentError } from '@world/contracts';
import { RPC, type RpcClient } from '@world/runtime';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { parseJsonObject, readBody } from '../http/body.js';
import { serveEventStream } from '../http/event-stream.js';
import { CommittedEvents } from '../provenance/log-stream.js';
import { ReadLog } from '../provenance/read-log.js';
import { ReadWorlds } from '../provenance/read-worlds.js';
import {
  AGUI_BODY_MAX_BYTES,
  AGUI_MAX_STREAMS,
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

  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly worlds: ReadWorlds,
    private readonly log: ReadLog,
    @Inject(WorkbenchController) private readonly workbench: WorkbenchController,
  ) {
    this.events = new CommittedEvents(rpc);
  }

  @Post('agui')
  async agui(@Req() req: Request, @Res() res: Response): Promise<void> {
    if (this.open.size >= AGUI_MAX_STREAMS) {
      res.setHeader('Retry-After', String(AGUI_RETRY_AFTER_S));
      res.status(503).json({
        error: {
          class: 'Unavailable',
          message: `${AGUI_MAX_STREAMS} AG-UI streams are open; retry later`,
        },
      });
      return;
    }
    const viewer = await this.workbench.viewer(req);
    if (viewer === null) throw new SessionAbsentError();
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
      }),
    );
  }

  onModuleDestroy(): void {
    for (const stop of this.open) stop.abort();
    this.events.close();
  }
}
