import { HANDLER_MAX_CONCURRENT } from '@world/contracts';

/**
 * The process-wide bound on concurrent AILANG work — embedded worker threads and binary
 * subprocesses alike (world-spec §10 "8 subprocesses"; world-internals §9). Callers wait for a
 * slot in arrival order.
 */
class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly max: number) {}

  async acquire(): Promise<void> {
    if (this.active < this.max) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }
}

const slots = new Semaphore(HANDLER_MAX_CONCURRENT);

/** Runs `work` once a slot is free, releasing the slot however it ends. */
export async function withSlot<T>(work: () => Promise<T>): Promise<T> {
  await slots.acquire();
  try {
    return await work();
  } finally {
    slots.release();
  }
}
