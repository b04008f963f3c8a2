// The smallest Worker that hosts the limiter's Durable Object class for the tests.
export { RateLimiter } from "../src/index";

export default {
  fetch: () => new Response(null, { status: 404 }),
} satisfies ExportedHandler;
