import { describe, expect, it } from "vitest";
import { utf8Bytes } from "../workers/api/src/domain/webhooks/queue-batches";

/** The events Queue's messages are sized by `utf8Bytes`: it must count what a Queue counts, the UTF-8 bytes. */
describe("utf8Bytes", () => {
  it("counts the UTF-8 bytes of every kind of character, as TextEncoder does", () => {
    const samples = [
      "",
      'plain ascii {"json": 1}',
      "é ü ß",
      "€ — 中文",
      "emoji 🎉👩‍💻",
      "\u0080\u07ff\u0800\uffff",
      "\ud83d",
      "x".repeat(10_000),
    ];
    for (const text of samples)
      expect(utf8Bytes(text), JSON.stringify(text.slice(0, 20))).toBe(new TextEncoder().encode(text).length);
  });
});
