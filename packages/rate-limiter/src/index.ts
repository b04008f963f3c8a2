export { clientAddressKey } from "./client-address";
export { type RateLimitHeaders, rateLimitHeaders } from "./headers";
export { RateLimiter } from "./limiter-object";
export { type Admission, type AdmissionJournal, SlidingWindowLog, type WindowDecision } from "./sliding-window";
export {
  type Admittance,
  admit,
  anonymousWindow,
  inboundWindows,
  ipWindow,
  platformWindow,
  RATE_LIMITS,
  type RateBudgets,
  type RateLimitedRequest,
  type RateWindow,
  type RefusingWindow,
  scaledBudgets,
  type TightestWindow,
  type WindowScope,
  windowsFor,
} from "./windows";
