/**
 * The value a synchronous call throws, for tests that assert on an error's class, code and exact
 * message. Fails the test when nothing is thrown.
 */
export function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
