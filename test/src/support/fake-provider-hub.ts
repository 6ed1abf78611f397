import { after, before } from "node:test";
import type { BackendHub, HubBackend } from "./hub-backends.js";
import { startFakeOpenAi, type FakeOpenAi } from "./openai-fakes.js";

/** The fake providers and the hub using them, set once the suite's `before` hook has run. */
export interface FakeProviderHub {
  fakes: FakeOpenAi;
  hub: BackendHub;
}

/**
 * Registers the current suite's before and after hooks: the OpenAI-format
 * fake providers (see startFakeOpenAi), and a hub on `backend` pointed at
 * them with `env` on top. Read the fields inside tests, not before.
 */
export function useFakeProviderHub(backend: HubBackend, env: Record<string, string>, fakeOptions: { dimension?: number; slowMs?: number } = {}): FakeProviderHub {
  const context = {} as FakeProviderHub;
  before(async () => {
    context.fakes = await startFakeOpenAi({ dimension: fakeOptions.dimension ?? 8, ...(fakeOptions.slowMs === undefined ? {} : { slowMs: fakeOptions.slowMs }) });
    context.hub = await backend.start({ ...context.fakes.env, ...env });
  });
  after(async () => {
    await context.hub?.close();
    await context.fakes?.close();
  });
  return context;
}
