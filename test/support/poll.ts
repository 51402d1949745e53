/**
 * Polling for what a job writes after an outside service (a stand-in under test/support/)
 * answered: a call the stand-in has seen is not yet a finished job, so a test reads again until
 * the job's write is there.
 */

/**
 * Calls `read` every `intervalMs` until `done` holds for what it returned or `timeoutMs` passed.
 * @returns The last value read — the one `done` accepted, or after the timeout the latest, for
 *   the caller's assertion to show.
 */
export async function pollUntil<T>(read: () => Promise<T>, done: (value: T) => boolean, { timeoutMs = 10_000, intervalMs = 50 } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
