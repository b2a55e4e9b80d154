/** What closeWorkerWithin needs of a BullMQ worker. */
export interface ClosableWorker {
  /** Stops taking jobs; resolves when the running ones have finished. */
  pause(): Promise<void>;
  close(force?: boolean): Promise<void>;
}

/**
 * Stops a queue worker taking jobs and waits up to `ms` for the jobs it is running, then
 * closes it. Jobs still running at the bound are not waited for: they stay active in Redis,
 * their locks are no longer renewed, and a worker elsewhere takes them over as stalled once
 * the lock lapses (lockDuration). Resolves true when every job finished in time.
 */
export async function closeWorkerWithin(worker: ClosableWorker, ms: number): Promise<boolean> {
  // Not close() then close(true): BullMQ returns the first close's promise to the second
  // call, so a graceful close can never be turned into a forced one. pause() waits instead.
  let timer: NodeJS.Timeout | undefined;
  const finished = await Promise.race([
    worker.pause().then(
      () => true,
      () => true,
    ),
    new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
  ]);
  clearTimeout(timer);
  await worker.close(!finished).catch(() => undefined);
  return finished;
}
