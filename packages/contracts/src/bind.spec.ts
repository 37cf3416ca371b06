import { DEFAULT_BIND, formatHostPort, parseHostPort } from './bind.js';

describe('parseHostPort (world-spec §10 WORLD_BIND: host:port, default 127.0.0.1:7644)', () => {
  it.each([
    [DEFAULT_BIND, { host: '127.0.0.1', port: 7644 }],
    ['127.0.0.1:0', { host: '127.0.0.1', port: 0 }],
    ['0.0.0.0:8080', { host: '0.0.0.0', port: 8080 }],
    ['localhost:65535', { host: 'localhost', port: 65535 }],
    ['[::1]:80', { host: '::1', port: 80 }],
  ])('reads %s and writes it back', (text, address) => {
    expect(parseHostPort(text)).toEqual(address);
    expect(formatHostPort(address)).toBe(text);
  });

  it.each([
    ['7644'],
    ['host:'],
    [':7644'],
    ['host:port'],
    ['localhost:65536'],
    ['localhost:99999'],
    ['::1:80'],
    ['a b:80'],
    ['[::1]'],
    ['localhost:123456'],
  ])('refuses %j', (text) => {
    expect(parseHostPort(text)).toBeNull();
  });
});
