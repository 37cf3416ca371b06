/** Dependency-injection tokens shared by the services' Nest modules. */
export const RPC = Symbol('world.rpc');
export const DATABASE = Symbol('world.database');
export const REPLICA = Symbol('world.replica');
