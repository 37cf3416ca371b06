import { Module, type DynamicModule } from '@nestjs/common';
import { DATABASE, REPLICA, RPC, type DatabaseHandle, type RpcClient } from '@world/runtime';
import { EffectsController } from './effects/effects.controller.js';
import { EffectsRepository } from './effects/effects.repository.js';
import { ExecuteEffect } from './effects/execute-effect.js';
import { ListInvocationEffects } from './effects/list-invocation-effects.js';
import { RecoverIntents } from './effects/recover-intents.js';
import { ReportUncommitted } from './effects/report-uncommitted.js';
import { StartEffect } from './effects/start-effect.js';
import { CallerLiveness } from './episodes/caller-liveness.js';
import { CreateEpisode, GetEpisode } from './episodes/create-episode.js';
import { EpisodesController } from './episodes/episodes.controller.js';
import { EpisodesRepository } from './episodes/episodes.repository.js';
import { EpisodeLease } from './episodes/lease.js';
import { EpisodeSpend } from './episodes/episode-spend.js';
import { LeaseSignals } from './episodes/lease-signals.js';
import { RecentReleases } from './episodes/recent-releases.js';
import { HealthController } from './health/health.controller.js';
import { GetObject, ObjectsController } from './objects/objects.controller.js';
import { ObjectsRepository } from './objects/objects.repository.js';
import { PolicyFiles } from './policy/policy-files.js';
import { ListSessions } from './sessions/list-sessions.js';
import { MintSession } from './sessions/mint-session.js';
import { ResolveSession } from './sessions/resolve-session.js';
import { RevokeSession } from './sessions/revoke-session.js';
import { SessionsController } from './sessions/sessions.controller.js';
import { SessionsRepository } from './sessions/sessions.repository.js';
import { WorkbenchTickets, WorkbenchTicketsController } from './sessions/workbench-tickets.js';
import {
  BROKER_SETTINGS,
  HANDLERS,
  type BrokerSettings,
  type HandlerRegistry,
} from './settings.js';

/** What the broker module is wired with (all resolved by startBroker). */
export interface BrokerModuleOptions {
  database: DatabaseHandle;
  rpc: RpcClient;
  replica: string;
  settings: BrokerSettings;
  handlers: HandlerRegistry;
}

/** The broker's Nest module: wiring only (CONVENTIONS.md). */
@Module({})
export class BrokerModule {
  static register(options: BrokerModuleOptions): DynamicModule {
    return {
      module: BrokerModule,
      controllers: [
        SessionsController,
        WorkbenchTicketsController,
        EpisodesController,
        EffectsController,
        ObjectsController,
        HealthController,
      ],
      providers: [
        { provide: DATABASE, useValue: options.database },
        { provide: RPC, useValue: options.rpc },
        { provide: REPLICA, useValue: options.replica },
        { provide: BROKER_SETTINGS, useValue: options.settings },
        { provide: HANDLERS, useValue: options.handlers },
        SessionsRepository,
        WorkbenchTickets,
        EpisodesRepository,
        EffectsRepository,
        ObjectsRepository,
        MintSession,
        ResolveSession,
        RevokeSession,
        ListSessions,
        CreateEpisode,
        GetEpisode,
        LeaseSignals,
        CallerLiveness,
        RecentReleases,
        EpisodeLease,
        EpisodeSpend,
        PolicyFiles,
        StartEffect,
        ExecuteEffect,
        ListInvocationEffects,
        RecoverIntents,
        ReportUncommitted,
        GetObject,
      ],
    };
  }
}
