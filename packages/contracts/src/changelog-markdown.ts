import { type Change, changelog } from "./changelog";

/** The change log as `GET /changelog` serves it: one entry per change, newest release first. */
export const changelogEntries = () =>
  changelog.flatMap((release) => release.changes.map((change) => ({ date: release.date, ...change })));

const headings: Record<Change["category"], string> = {
  addition: "Additions",
  behaviour_change: "Behaviour changes",
  removal: "Removals",
};

const width = 100;

/** A word that would start a list, a heading or a quote at the beginning of a line. */
const blockMarker = /^([-+*>]|#+|\d+[.)])$/;

/** One list item, wrapped at `width` columns with continuation lines indented under its text. */
function listItem(summary: string): string {
  const lines: string[] = [];
  let line = "-";
  for (const word of summary.split(" ")) {
    if (line.length + 1 + word.length > width && !blockMarker.test(word) && line.trim() !== "-") {
      lines.push(line);
      line = `  ${word}`;
    } else line = `${line} ${word}`;
  }
  lines.push(line);
  return lines.join("\n");
}

/** `CHANGELOG.md`, written from the same source as `GET /changelog` (`pnpm changelog`). */
export function changelogMarkdown(): string {
  const parts = [
    "# Change log",
    "<!-- Written by `pnpm changelog` from packages/contracts/src/changelog.ts: edit that file, not this one. -->",
    "Dated entries in the reference's categories: additions, behaviour changes, removals. `GET /changelog` serves the same entries as JSON, each with the routes it concerns.",
  ];
  for (const release of changelog) {
    parts.push(`## ${release.date} — ${release.title}`);
    for (const category of Object.keys(headings) as Change["category"][]) {
      const changes = release.changes.filter((change) => change.category === category);
      if (changes.length === 0) continue;
      parts.push(`### ${headings[category]}`, changes.map((change) => listItem(change.summary)).join("\n"));
    }
  }
  return `${parts.join("\n\n")}\n`;
}
