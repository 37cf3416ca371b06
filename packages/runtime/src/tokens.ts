/** Dependency-injection tokens shared by the services' Nest modules. */
export const RPC = Symbol('world.rpc');
export const DATABASE = Symbol('world.database');
export const CONFIG = Symbol('world.config');
export const REPLICA = Symbol('world.replica');
