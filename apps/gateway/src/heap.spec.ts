import { getHeapStatistics } from 'node:v8';
import { HEAP_GROWING_PERCENT, tuneGatewayHeap } from './heap.js';

describe('tuneGatewayHeap', () => {
  it('sets the growing factor when the process was started without one', () => {
    expect(HEAP_GROWING_PERCENT).toBe(75);
    expect(tuneGatewayHeap([], '')).toBe(true);
    expect(tuneGatewayHeap(['--enable-source-maps'], '--max-semi-space-size=8')).toBe(true);
  });

  it("leaves an operator's own --heap-growing-percent alone (node flags or NODE_OPTIONS)", () => {
    expect(tuneGatewayHeap(['--heap-growing-percent=20'], '')).toBe(false);
    expect(tuneGatewayHeap(['--heap-growing-percent', '20'], '')).toBe(false);
    expect(tuneGatewayHeap([], '--inspect --heap_growing_percent=20')).toBe(false);
  });

  it('is not a heap cap: the heap size limit stays what it was', () => {
    const before = getHeapStatistics().heap_size_limit;
    tuneGatewayHeap([], '');
    expect(getHeapStatistics().heap_size_limit).toBe(before);
  });
});
