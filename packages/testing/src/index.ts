export * from './env.js';
export * from './process.js';
