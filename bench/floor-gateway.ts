/**
 * The floor of any two-Worker design on this runtime: a gateway that does nothing but forward the
 * request over a service binding to the region (the bare handler of `bare-worker.ts`, one D1 read).
 * The pipeline's gateway adds authentication, limits, the signed context and the logs on top of this.
 */
interface FloorEnv {
  REGION: Fetcher;
}

export default {
  fetch: (request: Request, env: FloorEnv) => env.REGION.fetch(request),
} satisfies ExportedHandler<FloorEnv>;
