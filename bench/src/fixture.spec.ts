import { fileText } from './fixture.js';

describe('fileText', () => {
  it.each([[2048], [64], [1]])('is exactly %d ASCII bytes', (bytes) => {
    const text = fileText(bytes);
    expect(Buffer.byteLength(text, 'utf8')).toBe(bytes);
    expect(text).toBe(fileText(bytes));
  });

  it('is made of 64-byte lines', () => {
    expect(fileText(128)).toBe(
      'line 0000 of the World bench fixture ..........................\n' +
        'line 0001 of the World bench fixture ..........................\n',
    );
  });
});
