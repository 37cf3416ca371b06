export * from './env.js';
export * from './process.js';
export * from './lock-orphan.js';
