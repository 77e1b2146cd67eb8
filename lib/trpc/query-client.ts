import { defaultShouldDehydrateQuery, QueryClient } from "@tanstack/react-query";
import { wireTransformer } from "./transformer";

export function makeQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: { staleTime: 30_000, retry: 1 },
      dehydrate: {
        serializeData: wireTransformer.serialize,
        shouldDehydrateQuery: (query) =>
          defaultShouldDehydrateQuery(query) || query.state.status === "pending",
      },
      hydrate: { deserializeData: wireTransformer.deserialize },
    },
  });
}
