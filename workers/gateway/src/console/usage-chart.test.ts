import { describe, expect, it } from "vitest";
import { seriesOf, UsageChart } from "./usage-chart";

const days = ["2026-11-21", "2026-11-22", "2026-11-23"];
const routes = (count: number) => Array.from({ length: count }, (_, index) => `GET /route-${index}`);

describe("the usage chart", () => {
  it("draws the costliest routes on their own and sums the rest as one series", () => {
    const rows = routes(8).map((route, index) => ({ day: "2026-11-23", route, costUnits: (index + 1) * 20 }));
    expect(seriesOf(rows)).toEqual([
      "GET /route-7",
      "GET /route-6",
      "GET /route-5",
      "GET /route-4",
      "GET /route-3",
      "Other routes",
    ]);
    expect(seriesOf(rows.slice(0, 6))).toHaveLength(6);
  });

  it("stacks a day's routes, with the other routes' sum in one segment and labelled axes", async () => {
    const rows = [
      ...routes(8).map((route) => ({ day: "2026-11-23", route, costUnits: 20 })),
      { day: "2026-11-21", route: "GET /route-0", costUnits: 40 },
    ];
    const svg = String(await UsageChart({ days, rows }).toString());
    const segments = [...svg.matchAll(/<title>([^<]+)<\/title><\/rect>/g)].map((match) => match[1]);
    expect(segments).toContain("2026-11-21 · GET /route-0: 0.4 tokens");
    expect(segments).toContain("2026-11-23 · Other routes: 0.6 tokens");
    expect(segments.filter((segment) => segment?.startsWith("2026-11-23"))).toHaveLength(6);
    expect(svg).toContain("2 tokens from 2026-11-21 to 2026-11-23; the busiest day was 2026-11-23 with 1.6.");
    expect(svg).toContain(">UTC day</text>");
    expect(svg).toContain(">Tokens</text>");
  });

  it("says so when nothing was charged", async () => {
    const svg = String(await UsageChart({ days, rows: [] }).toString());
    expect(svg).toContain("No token cost from 2026-11-21 to 2026-11-23.");
    expect(svg).not.toContain("<rect x=");
  });
});
