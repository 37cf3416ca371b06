import { Controller, Get, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import { performance } from 'node:perf_hooks';
import type { Request, Response } from 'express';
import { PayloadTooLargeError, READ_ALL, type ReadScope } from '@world/contracts';
import { readBody } from '../http/body.js';
import { RPC, type RpcClient } from '@world/runtime';
import { asWorldError, restErrorOf } from '../errors/error-map.js';
import { Authenticator, readScopeOf } from '../auth/authenticator.js';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway.tokens.js';
import { ReadHealth } from '../health/read-health.js';
import { ReadLog } from '../provenance/read-log.js';
import { ReadObjects } from '../provenance/read-objects.js';
import { ReadReceipt } from '../provenance/read-receipt.js';
import { ReadTlog } from '../provenance/read-tlog.js';
import { ReadWorlds } from '../provenance/read-worlds.js';
import { WORKBENCH_CSS, WORKBENCH_ICON, WORKBENCH_JS } from './assets.js';
import { loginCookie, loginOf, WorkbenchLogins } from './access.js';
import { entryBody, objectBody } from './entry-page.js';
import type { LogProofReads } from './proof-section.js';
import { episodeBody, episodesBody, listSessions } from './episodes-page.js';
import { html, layout, type Html } from './html.js';
import { ScopedProvenance, type ProvenanceReads } from './scoped-reads.js';
import { secure } from './security.js';
import {
  parseRowsQuery,
  parseTimelineQuery,
  readRowsFrom,
  readTimeline,
  rowHtml,
  timelineBody,
} from './timeline-page.js';
import { overviewBody, readOverview } from './overview-page.js';
import { ReplicaSurvey } from './replica-survey.js';
import { logLinkReadsOf, runWhy, whyBody } from './why-page.js';

/** The caller of a page: its read scope and how the header names it. */
export interface Viewer {
  scope: ReadScope;
  /** true for the operator credential: what no session may see is shown only then */
  operator: boolean;
  /** the Authorization header the workbench resolved (from the login cookie or the request) */
  authorization: string | undefined;
  label: string;
}

/** The largest body of the Why form's POST (bytes): a pasted result object with its `world` block. */
const WHY_BODY_MAX_BYTES = 1024 * 1024;

/** The page shown without a credential: how to get one, nothing else. */
const LOGIN_HELP = html`<p>
  This workbench needs a credential. Run <code>world workbench</code> (operator) or
  <code>world workbench --session &lt;token file&gt;</code> on the machine World runs on: it prints
  a one-time login URL (add <code>--open</code> to open it).
</p>`;

/**
 * The workbench (DESIGN.md §5a; world-spec §5.12): read-only HTML pages over World's log, served by
 * the gateway. Every route reads; the only state it keeps is its own logins (access.ts).
 */
@Controller()
export class WorkbenchController {
  private readonly provenance: ProvenanceReads;

  constructor(
    @Inject(RPC) private readonly rpc: RpcClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    private readonly auth: Authenticator,
    private readonly health: ReadHealth,
    private readonly tlog: ReadTlog,
    worlds: ReadWorlds,
    log: ReadLog,
    objects: ReadObjects,
    receipts: ReadReceipt,
    @Inject(WorkbenchLogins) private readonly logins: WorkbenchLogins,
    @Inject(ReplicaSurvey) private readonly survey: ReplicaSurvey,
  ) {
    this.provenance = { worlds, log, objects, receipts };
  }

  /** The viewer of a request, or null without a usable credential. */
  async viewer(req: Request): Promise<Viewer | null> {
    const token = this.logins.token(loginOf(req.headers.cookie));
    const authorization = token === null ? req.headers.authorization : `Bearer ${token}`;
    if (this.settings.publicReads && authorization === undefined)
      return { scope: READ_ALL, operator: false, authorization, label: 'public reads' };
    if (authorization === undefined) return null;
    try {
      const principal = await this.auth.reader(authorization);
      const scope = readScopeOf(principal);
      const label =
        principal.kind === 'operator'
          ? 'operator'
          : `session of episode ${principal.session.episodeId}`;
      return { scope, operator: principal.kind === 'operator', authorization, label };
    } catch {
      return null;
    }
  }

  private reads(scope: ReadScope): ScopedProvenance {
    return new ScopedProvenance(this.provenance, scope, async () => {
      try {
        const h = await this.health.execute();
        return { ref: h.interpreter_ref, version: h.interpreter_version };
      } catch {
        return null;
      }
    });
  }

  /** Renders a page for a viewer; a credential missing is 401, bad input 400, absent 404. */
  private async page(
    req: Request,
    res: Response,
    title: string,
    body: (viewer: Viewer) => Promise<Html | null>,
  ): Promise<void> {
    secure(res);
    res.type('html');
    // Server-Timing (W3C Server Timing): the page's server time, what `pnpm bench --workbench` judges
    const t0 = performance.now();
    const send = res.send.bind(res);
    res.send = (b?: unknown) => {
      res.setHeader('Server-Timing', `page;dur=${(performance.now() - t0).toFixed(1)}`);
      return send(b);
    };
    const viewer = await this.viewer(req);
    if (viewer === null) {
      res.status(401).send(layout('Sign in', LOGIN_HELP, 'no credential').text);
      return;
    }
    try {
      const content = await body(viewer);
      if (content === null) {
        res
          .status(404)
          .send(
            layout(
              'Not found',
              html`<p>Nothing here is visible to this credential.</p>`,
              viewer.label,
            ).text,
          );
        return;
      }
      res.status(200).send(layout(title, content, viewer.label).text);
    } catch (err) {
      const { status, body } = restErrorOf(asWorldError(err));
      const message = body.error.message;
      res
        .status(status)
        .send(
          layout('Error', html`<p class="stop" role="alert">${message}</p>`, viewer.label).text,
        );
    }
  }

  @Get('workbench')
  timeline(@Req() req: Request, @Res() res: Response, @Query() query: Record<string, unknown>) {
    return this.page(req, res, 'Timeline', async (v) => {
      const q = parseTimelineQuery(query);
      const page = await readTimeline(this.rpc, v.scope, q);
      return timelineBody(page, q, new Date().toISOString().slice(11, 19));
    });
  }

  /** The rows of entries from `from` on (at most 100, oldest first): what the live script inserts. */
  @Get('workbench/rows')
  async rows(@Req() req: Request, @Res() res: Response, @Query() query: Record<string, unknown>) {
    secure(res);
    const viewer = await this.viewer(req);
    if (viewer === null) return void res.status(401).type('text').send('no credential');
    const { from, ...filters } = query;
    if (typeof from !== 'string' || !/^[0-9]{1,15}$/.test(from))
      return void res.status(400).type('text').send('from must be a non-negative integer');
    let q;
    try {
      q = parseRowsQuery(filters);
    } catch (err) {
      return void res
        .status(400)
        .type('text')
        .send((err as Error).message);
    }
    const rows = await readRowsFrom(this.rpc, viewer.scope, Number(from), q);
    res
      .status(200)
      .type('html')
      .send(rows.map((r) => rowHtml(r).text).join(''));
  }

  /** The transparency-log reads: the log's skeleton, the same for every viewer (RFC 9162). */
  private readonly log: LogProofReads = {
    key: () => this.tlog.key(),
    checkpoint: () => this.tlog.checkpoint(),
    inclusion: (index, size) => this.tlog.inclusion(String(index), String(size)),
  };

  @Get('workbench/entry/:index')
  entry(@Req() req: Request, @Res() res: Response, @Param('index') index: string) {
    return this.page(req, res, `Entry #${index}`, async (v) =>
      /^[0-9]{1,15}$/.test(index) ? entryBody(this.reads(v.scope), this.log, Number(index)) : null,
    );
  }

  /**
   * The raw signed checkpoint, verbatim as GET /v1/checkpoint serves it, on a workbench page (a
   * viewer logged in by cookie: the /v1 routes read only the Authorization header).
   */
  @Get('workbench/checkpoint')
  checkpoint(@Req() req: Request, @Res() res: Response) {
    return this.page(req, res, 'Signed checkpoint', async () => {
      const note = await this.log.checkpoint();
      return html`<pre class="raw">${note}</pre>
        <p class="muted">also <code>GET /v1/checkpoint</code></p>`;
    });
  }

  /**
   * The raw inclusion proof JSON, as GET /v1/proof/inclusion serves it, on a workbench page.
   * @throws (as a 400 page) the route's `index must be …` / `size must be …` and the ledger's range errors
   */
  @Get('workbench/proof/inclusion')
  inclusion(
    @Req() req: Request,
    @Res() res: Response,
    @Query('index') index: unknown,
    @Query('size') size: unknown,
  ) {
    return this.page(req, res, 'Inclusion proof', async () => {
      const proof = await this.tlog.inclusion(index, size);
      return html`<pre class="raw">${JSON.stringify(proof, null, 2)}</pre>
        <p class="muted">
          also <code>GET /v1/proof/inclusion?index=${proof.index}&amp;size=${proof.size}</code>
        </p>`;
    });
  }

  @Get('workbench/objects/:ref')
  object(@Req() req: Request, @Res() res: Response, @Param('ref') ref: string) {
    return this.page(req, res, 'Object', async (v) =>
      /^sha256:[0-9a-f]{64}$/.test(ref) ? objectBody(this.reads(v.scope), ref) : null,
    );
  }

  @Get('workbench/why')
  why(@Req() req: Request, @Res() res: Response, @Query('target') target: unknown) {
    return this.page(req, res, 'Why', async (v) =>
      whyBody(
        await runWhy(
          this.reads(v.scope),
          logLinkReadsOf(this.log),
          typeof target === 'string' ? target : '',
        ),
      ),
    );
  }

  /**
   * The Why form's POST (a pasted result object may exceed a URL's bound): the same read-only
   * walk as GET, target from an `application/x-www-form-urlencoded` body of at most
   * WHY_BODY_MAX_BYTES.
   * @throws (as a 413 page) PayloadTooLargeError naming the limit
   */
  @Post('workbench/why')
  whyPosted(@Req() req: Request, @Res() res: Response) {
    return this.page(req, res, 'Why', async (v) => {
      const body = await readBody(req, WHY_BODY_MAX_BYTES).catch((err: unknown) => {
        throw err instanceof PayloadTooLargeError
          ? new PayloadTooLargeError(
              `the Why form takes at most ${WHY_BODY_MAX_BYTES / 1024 / 1024} MiB; this paste is larger`,
            )
          : err;
      });
      const target = new URLSearchParams(body.toString('utf8')).get('target') ?? '';
      return whyBody(await runWhy(this.reads(v.scope), logLinkReadsOf(this.log), target));
    });
  }

  @Get('workbench/overview')
  overview(@Req() req: Request, @Res() res: Response) {
    return this.page(req, res, 'Overview', async (v) =>
      overviewBody(
        await readOverview(this.rpc, v.scope, v.operator ? this.survey.snapshot() : 'hidden'),
      ),
    );
  }

  @Get('workbench/episodes')
  episodes(@Req() req: Request, @Res() res: Response) {
    return this.page(req, res, 'Episodes', async (v) =>
      episodesBody(await listSessions(this.rpc, v.scope)),
    );
  }

  @Get('workbench/episodes/:id')
  episode(@Req() req: Request, @Res() res: Response, @Param('id') id: string) {
    return this.page(req, res, `Episode ${id}`, (v) =>
      episodeBody(this.rpc, v.scope, id, Date.now()),
    );
  }

  /**
   * A one-time login ticket for the caller's credential (operator or live session), as
   * `{ticket, path}`: `world workbench` prints the URL of `path`.
   */
  @Post('workbench/tickets')
  async ticket(@Req() req: Request, @Res() res: Response) {
    secure(res);
    const principal = await this.auth.reader(req.headers.authorization);
    const token = req.headers.authorization!.slice('Bearer '.length).trim();
    const ticket = this.logins.ticket(token);
    res.status(200).json({
      ticket,
      path: `/workbench/login?ticket=${ticket}`,
      as: principal.kind === 'operator' ? 'operator' : principal.session.episodeId,
    });
  }

  /** Exchanges a ticket for the login cookie and drops the ticket from the address bar. */
  @Get('workbench/login')
  async login(@Res() res: Response, @Query('ticket') ticket: unknown) {
    secure(res);
    let login: string | null;
    try {
      login = typeof ticket === 'string' ? await this.logins.exchange(ticket) : null;
    } catch (err) {
      const message = `the login could not be checked (${asWorldError(err).message}); open the URL again shortly`;
      res
        .status(503)
        .type('html')
        .send(layout('Sign in', html`<p class="stop">${message}</p>`, 'no credential').text);
      return;
    }
    if (login === null) {
      res
        .status(401)
        .type('html')
        .send(
          layout(
            'Sign in',
            html`<p class="stop">This login URL was already used or has expired.</p>
              ${LOGIN_HELP}`,
            'no credential',
          ).text,
        );
      return;
    }
    res.setHeader('Set-Cookie', loginCookie(login));
    res.redirect(303, '/workbench');
  }

  @Get('workbench/assets/workbench.css')
  css(@Res() res: Response) {
    secure(res);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('text/css').send(WORKBENCH_CSS);
  }

  @Get('workbench/assets/favicon.svg')
  icon(@Res() res: Response) {
    secure(res);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('image/svg+xml').send(WORKBENCH_ICON);
  }

  @Get('workbench/assets/workbench.js')
  js(@Res() res: Response) {
    secure(res);
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.type('text/javascript').send(WORKBENCH_JS);
  }
}
