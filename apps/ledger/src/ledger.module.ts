import { Module, type DynamicModule } from '@nestjs/common';
import { DATABASE, REPLICA, RPC, type DatabaseHandle, type RpcClient } from '@world/runtime';
import { CommitController } from './commit/commit.controller.js';
import { CommitInvocation } from './commit/commit-invocation.js';
import { CommitRest } from './commit/commit-rest.js';
import { CommitRepository } from './commit/commit.repository.js';
import { CommittedEvents } from './commit/committed-events.js';
import { TREE_GUARD, type TreeGuard } from './commit/tree-guard.js';
import { CHECKPOINT_SIGNER } from './constants.js';
import { HealthController } from './health/health.controller.js';
import { GetReceipt } from './journal/get-receipt.js';
import { BeginInvocation, EndInvocation, GetInvocation } from './journal/invocations.js';
import { JournalController } from './journal/journal.controller.js';
import { JournalRepository } from './journal/journal.repository.js';
import { GetHead, GetLogEntry, GetWorld, ListLog } from './reads/read-log.js';
import { GetObject, ListObjectsBySemanticId } from './reads/read-objects.js';
import { ListUnrecorded, ReadTimeline, ReadTimelineRate } from './reads/read-timeline.js';
import { ReadsController } from './reads/reads.controller.js';
import { ReadsRepository } from './reads/reads.repository.js';
import { LocateEntry, LocateRepository } from './reads/locate-entry.js';
import { TimelineController } from './reads/timeline.controller.js';
import { TimelineRepository } from './reads/timeline.repository.js';
import { GetRegistryHead, PublishRegistryHead } from './registry/registry-heads.js';
import { RegistryController } from './registry/registry.controller.js';
import { RegistryRepository } from './registry/registry.repository.js';
import type { CheckpointSigner } from './tlog/checkpoint-signer.js';
import { ReadCheckpoint, ReadLogKey } from './tlog/read-checkpoint.js';
import { ReadConsistency, ReadInclusion } from './tlog/read-proofs.js';
import { TlogController } from './tlog/tlog.controller.js';
import { TreeRepository } from './tlog/tree.repository.js';

/** What the ledger module is wired with (all made by startLedger). */
export interface LedgerModuleOptions {
  /** the database holding schema `ledger` (migrated, genesis bootstrapped) */
  database: DatabaseHandle;
  /** the client `ledger.committed` is emitted on */
  rpc: RpcClient;
  /** this replica's name, reported by `ledger.health` */
  replica: string;
  /** the replica's append guard and checkpoint signer, and the tree they read */
  guard: TreeGuard;
  signer: CheckpointSigner;
  tree: TreeRepository;
}

/** The ledger service's Nest module: wiring only (CONVENTIONS.md). */
@Module({})
export class LedgerModule {
  static register(options: LedgerModuleOptions): DynamicModule {
    return {
      module: LedgerModule,
      controllers: [
        CommitController,
        ReadsController,
        TimelineController,
        JournalController,
        RegistryController,
        HealthController,
        TlogController,
      ],
      providers: [
        { provide: DATABASE, useValue: options.database },
        { provide: RPC, useValue: options.rpc },
        { provide: REPLICA, useValue: options.replica },
        { provide: TREE_GUARD, useValue: options.guard },
        { provide: CHECKPOINT_SIGNER, useValue: options.signer },
        { provide: TreeRepository, useValue: options.tree },
        CommitRepository,
        ReadsRepository,
        TimelineRepository,
        LocateRepository,
        LocateEntry,
        JournalRepository,
        RegistryRepository,
        CommittedEvents,
        CommitInvocation,
        CommitRest,
        GetHead,
        GetWorld,
        GetLogEntry,
        ListLog,
        GetObject,
        ListObjectsBySemanticId,
        ReadTimeline,
        ReadTimelineRate,
        ListUnrecorded,
        GetReceipt,
        BeginInvocation,
        GetInvocation,
        EndInvocation,
        GetRegistryHead,
        PublishRegistryHead,
        ReadCheckpoint,
        ReadLogKey,
        ReadInclusion,
        ReadConsistency,
      ],
    };
  }
}
