/**
 * Times as the console shows them: one short line (a date, or a relative time for activity), the
 * full UTC timestamp on hover and in `datetime` for assistive technology. Pages are rendered on the
 * server, which does not know the reader's time zone: every time is UTC and says so on hover.
 */
let dateFormat: Intl.DateTimeFormat | undefined;

/** `26 Nov 2026`. The format is made on first use: making it loads the locale's data, a few milliseconds at startup otherwise. */
export function readableDate(ms: number): string {
  dateFormat ??= new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  return dateFormat.format(ms);
}

/** `2026-11-26 13:05:42 UTC`: what the hover shows. */
export const fullTimestamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 19).replace("T", " ")} UTC`;

const units: [limitMs: number, unitMs: number, name: string][] = [
  [60 * 60_000, 60_000, "min"],
  [24 * 3_600_000, 3_600_000, "h"],
  [45 * 86_400_000, 86_400_000, "day"],
];

/** `just now`, `4 min ago`, `3 h ago`, `in 29 days`; past 45 days the date. */
export function relativeTime(ms: number, now = Date.now()): string {
  const distance = Math.abs(now - ms);
  if (distance < 60_000) return now >= ms ? "just now" : "in a minute";
  const unit = units.find(([limit]) => distance < limit);
  if (!unit) return readableDate(ms);
  const count = Math.floor(distance / unit[1]);
  const name = unit[2] === "day" && count !== 1 ? "days" : unit[2];
  return now >= ms ? `${count} ${name} ago` : `in ${count} ${name}`;
}

/** A date on one line; the exact time on hover. */
export const DateTime = ({ at, empty = "—" }: { at: number | null; empty?: string }) =>
  at === null ? (
    <span>{empty}</span>
  ) : (
    <time datetime={new Date(at).toISOString()} title={fullTimestamp(at)}>
      {readableDate(at)}
    </time>
  );

/** How long ago (or until); the exact time on hover. */
export const RelativeTime = ({ at, empty = "—" }: { at: number | null; empty?: string }) =>
  at === null ? (
    <span>{empty}</span>
  ) : (
    <time datetime={new Date(at).toISOString()} title={fullTimestamp(at)}>
      {relativeTime(at)}
    </time>
  );
