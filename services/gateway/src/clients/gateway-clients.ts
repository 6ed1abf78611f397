/** The domain clients tools call: every proto message a tool needs is built and read behind them. */
import { createAnswerClient } from "./answer-client.js";
import { createApiKeysClient } from "./api-keys-client.js";
import { createArtifactsClient } from "./artifacts-client.js";
import { createCollectionsClient } from "./collections-client.js";
import { createEntriesClient } from "./entries-client.js";
import { describeFeatures } from "./features-client.js";
import { createHandoffsClient } from "./handoffs-client.js";
import { createHistoryClient } from "./history-client.js";
import { createMemoriesClient } from "./memories-client.js";
import { createNavigationClient } from "./navigation-client.js";
import { createSessionsClient } from "./sessions-client.js";
import type { Peers } from "./peers.js";
import { createPublicationsClient } from "./publications-client.js";
import { createResourceWatchClient } from "./resource-watch-client.js";
import { createReviewClient } from "./review-client.js";
import { createSearchClient } from "./search-client.js";
import { createSharingClient } from "./sharing-client.js";

/** Domain clients over one set of peer connections. */
export interface GatewayClients {
  entries: ReturnType<typeof createEntriesClient>;
  sharing: ReturnType<typeof createSharingClient>;
  review: ReturnType<typeof createReviewClient>;
  history: ReturnType<typeof createHistoryClient>;
  navigation: ReturnType<typeof createNavigationClient>;
  memories: ReturnType<typeof createMemoriesClient>;
  search: ReturnType<typeof createSearchClient>;
  handoffs: ReturnType<typeof createHandoffsClient>;
  sessions: ReturnType<typeof createSessionsClient>;
  artifacts: ReturnType<typeof createArtifactsClient>;
  answers: ReturnType<typeof createAnswerClient>;
  /** A tenant administrator's API keys. */
  apiKeys: ReturnType<typeof createApiKeysClient>;
  collections: ReturnType<typeof createCollectionsClient>;
  /** The URIs a caller publishes entries, images and files under (resources/read). */
  publications: ReturnType<typeof createPublicationsClient>;
  /** Resource subscriptions and the streams of their changes (notifications/resources/updated). */
  resourceWatch: ReturnType<typeof createResourceWatchClient>;
  /** What this deployment has on (whoami). */
  features: { describe: () => ReturnType<typeof describeFeatures> };
}

const built = new WeakMap<Peers, GatewayClients>();

/** The domain clients over `peers`, built once per set of connections (servers are made per request). */
export function gatewayClientsFor(peers: Peers): GatewayClients {
  let clients = built.get(peers);
  if (clients === undefined) {
    clients = {
      entries: createEntriesClient(peers.entries),
      sharing: createSharingClient(peers.sharing),
      review: createReviewClient(peers.review),
      history: createHistoryClient(peers),
      navigation: createNavigationClient(peers.search),
      memories: createMemoriesClient(peers.memories),
      search: createSearchClient(peers),
      handoffs: createHandoffsClient(peers.handoffs),
      sessions: createSessionsClient(peers.sessions),
      artifacts: createArtifactsClient(peers.artifacts),
      answers: createAnswerClient(peers),
      apiKeys: createApiKeysClient(peers.apiKeys),
      collections: createCollectionsClient(peers.collections),
      publications: createPublicationsClient(peers.publications),
      resourceWatch: createResourceWatchClient(peers.resourceWatch),
      features: { describe: () => describeFeatures(peers) },
    };
    built.set(peers, clients);
  }
  return clients;
}
