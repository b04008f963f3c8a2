export { type RateLimitHeaders, rateLimitHeaders } from "./headers";
export { RateLimiter } from "./limiter-object";
export { type Admission, type AdmissionJournal, SlidingWindowLog, type WindowDecision } from "./sliding-window";
export {
  type Admittance,
  admit,
  ipWindow,
  RATE_LIMITS,
  type RateLimitedRequest,
  type RateWindow,
  type RefusingWindow,
  type TightestWindow,
  type WindowScope,
  windowsFor,
} from "./windows";
