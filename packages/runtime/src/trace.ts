import { AsyncLocalStorage } from 'node:async_hooks';

/** Per-call context carried across awaits: the invocation id and the W3C trace parent. */
export interface CallContext {
  invocationId?: string;
  traceparent?: string;
}

const storage = new AsyncLocalStorage<CallContext>();

/** Runs `fn` with a call context; logs and outgoing requests inside it carry its fields. */
export function withCallContext<T>(context: CallContext, fn: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, fn);
}

/** The current call context, if any. */
export function callContext(): CallContext | undefined {
  return storage.getStore();
}

/** The current W3C traceparent, if any. */
export function currentTraceparent(): string | undefined {
  return storage.getStore()?.traceparent;
}
