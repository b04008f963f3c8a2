import { Webhook } from "svix";
import { describe, expect, it } from "vitest";
import { expectStatus, unique } from "./crm";
import { addPerson, inboxWorkspace } from "./inbox";
import { type Received, received, receiverPath, receiverUrl } from "./receiver";
import { eventually } from "./stack";

/**
 * Issue 25 finding 16: after `rotate-secret` answers, the very next delivery is signed with the new
 * secret (beside the old one for 24 hours), even when the subscription's lane read it a moment
 * before. Verified with `svix`, a client library this project does not use itself.
 */

const receivedAt = async (path: string, count: number) =>
  eventually(
    () => received(path),
    (requests) => requests.length >= count,
  );

describe("a rotated webhook secret", () => {
  it("signs the first delivery after the answer, the old one beside it", async () => {
    const { key, workspaceId } = await inboxWorkspace();
    const personId = await addPerson(key, workspaceId, "Pat Person", `pat-${unique()}@customer.example`);
    const path = receiverPath("hook-rotation");
    const { webhook, secret: oldSecret } = await expectStatus<{ webhook: { id: string }; secret: string }>(201, "/webhooks", {
      method: "POST",
      key,
      json: { workspaceId, url: receiverUrl(path), eventTypes: ["task.created"] },
    });
    const createTask = (title: string) =>
      expectStatus(201, `/records/${personId}/tasks`, { method: "POST", key, json: { title } });
    // A delivery first, so the lane holds the subscription (and its secret) as it read it.
    await createTask("Before the rotation");
    expect(await receivedAt(path, 1)).toHaveLength(1);

    const { secret: newSecret } = await expectStatus<{ secret: string }>(200, `/webhooks/${webhook.id}/rotate-secret`, {
      method: "POST",
      key,
    });
    await createTask("Right after the rotation");
    const [, delivery] = await receivedAt(path, 2);
    const { body, headers } = delivery as Received;
    // svix throws when no signature of the delivery verifies with the secret.
    expect(() => new Webhook(newSecret).verify(body, headers)).not.toThrow();
    expect((JSON.parse(body) as { data: { title: string } }).data.title).toBe("Right after the rotation");
    // Receivers that have not switched yet still verify it for a day.
    expect(() => new Webhook(oldSecret).verify(body, headers)).not.toThrow();
  });
});
