/** Test helper: runs `fn` and returns what it threw (fails the test when it throws nothing). */
export function thrownBy(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a refusal, but nothing was thrown');
}

/** Asserts that `fn` throws exactly `Class` with exactly `message`. */
export function expectRefusal(
  fn: () => unknown,
  Class: abstract new (...args: never[]) => Error,
  message: string,
): Error {
  const error = thrownBy(fn);
  expect(error).toBeInstanceOf(Class);
  expect(error.message).toBe(message);
  return error;
}
