/** An AbortController for work of its own that must also stop when a parent signal aborts. */
export interface ChildAbortController {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
  /** Stops following the parent; call it once the work is done, so the parent does not keep the listener. */
  release(): void;
}

/**
 * A controller that aborts with `parent`'s reason when `parent` aborts (at
 * once if it already has), and can also be aborted on its own: a call's
 * signal fanning out to work that a failure, a budget or an answer given
 * may end sooner.
 */
export function createChildAbortController(parent: AbortSignal | undefined): ChildAbortController {
  const controller = new AbortController();
  const follow = () => controller.abort(parent?.reason);
  if (parent?.aborted === true) follow();
  else parent?.addEventListener("abort", follow, { once: true });
  return {
    signal: controller.signal,
    abort: (reason) => controller.abort(reason),
    release: () => parent?.removeEventListener("abort", follow),
  };
}
