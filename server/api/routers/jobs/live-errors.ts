import { toTrpcError } from "@/server/api/trpc";

/**
 * A subscription's errors pass no middleware once it has started: AppErrors (a revoked session's
 * UNAUTHORIZED, a job not found) become TRPCErrors of their code here, for every live stream.
 */
export async function* withTrpcErrors<M>(stream: AsyncIterable<M>): AsyncGenerator<M, void> {
  try {
    yield* stream;
  } catch (error) {
    throw toTrpcError(error);
  }
}

/** Runs a subscription's opening check, its AppError thrown as the TRPCError of its code. */
export async function opening<T>(check: Promise<T>): Promise<T> {
  return check.catch((error: unknown) => {
    throw toTrpcError(error);
  });
}
