export * from './env.js';
export * from './process.js';
export * from './line-waiter.js';
export * from './lock-orphan.js';
export * from './nats-server.js';
export * from './independent-tlog.js';
