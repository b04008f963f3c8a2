export { clientAddressKey } from "./client-address";
export { type RateLimitHeaders, rateLimitHeaders } from "./headers";
export { type LeaseCounters, LeaseHolder, type RequestIo } from "./lease-holder";
export { RateLimiter } from "./limiter-object";
export { type Admission, type AdmissionJournal, SlidingWindowLog, type WindowDecision } from "./sliding-window";
export { LEASE_MS, type Lease, type LeaseGrant, LONGEST_LEASE_MS, type Settlement, WindowLedger } from "./window-ledger";
export type { Admittance, RateWindow, RefusingWindow, TightestWindow, WindowScope } from "./window-types";
export {
  admit,
  callerWindows,
  clientWindow,
  connectionWindow,
  failedAuthenticationWindow,
  inboundWindow,
  ipWindow,
  leaseCalls,
  leaseCounters,
  mcpDiscoveryWindows,
  platformWindow,
  publicReadWindows,
  RATE_LIMITS,
  type RateBudgets,
  type RateLimitedRequest,
  recipientWindow,
  scaledBudgets,
  windowsFor,
} from "./windows";
