import { Module, type DynamicModule } from '@nestjs/common';
import { DATABASE, REPLICA, RPC, type DatabaseHandle, type RpcClient } from '@world/runtime';
import { CommitController } from './commit/commit.controller.js';
import { CommitRepository } from './commit/commit.repository.js';
import { TREE_GUARD, TreeGuard } from './commit/tree-guard.js';
import { CHECKPOINT_SIGNER } from './constants.js';
import { HealthController } from './health/health.controller.js';
import { JournalController } from './journal/journal.controller.js';
import { JournalRepository } from './journal/journal.repository.js';
import { ReadsController } from './reads/reads.controller.js';
import { ReadsRepository } from './reads/reads.repository.js';
import { TimelineController } from './reads/timeline.controller.js';
import { TimelineRepository } from './reads/timeline.js';
import { RegistryController } from './registry/registry.controller.js';
import { RegistryRepository } from './registry/registry.repository.js';
import type { CheckpointSigner } from './tlog/checkpoint-signer.js';
import { TlogController } from './tlog/tlog.controller.js';
import { TreeRepository } from './tlog/tree.repository.js';

/** What the ledger module is wired with. */
export interface LedgerModuleOptions {
  /** the database holding schema `ledger` (migrated, genesis bootstrapped) */
  database: DatabaseHandle;
  /** the client `ledger.committed` is emitted on */
  rpc: RpcClient;
  /** this replica's name, reported by `ledger.health` */
  replica: string;
  /** the replica's append guard and checkpoint signer (issue 12) */
  guard: TreeGuard;
  signer: CheckpointSigner;
  tree: TreeRepository;
}

/** The ledger service's Nest module: wiring only. */
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
        JournalRepository,
        RegistryRepository,
      ],
    };
  }
}
