import { raw } from "hono/html";

/**
 * The console's only script: it shows the copy buttons (hidden for browsers without script, where
 * the key stays selectable text) and copies the element each names. Where the clipboard refuses, it
 * selects the text and says how to copy it. Runs under the page's CSP nonce; nothing else may run.
 */
const copyScript = `
for (const button of document.querySelectorAll("button[data-copy]")) {
  const source = document.getElementById(button.dataset.copy);
  const status = document.getElementById(button.dataset.copy + "-status");
  button.hidden = false;
  status.textContent = "";
  button.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(source.textContent);
      status.textContent = "Copied to the clipboard.";
    } catch {
      getSelection().selectAllChildren(source);
      status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy it.";
    }
  });
}`;

export const CopyScript = ({ nonce }: { nonce: string }) => <script nonce={nonce}>{raw(copyScript)}</script>;
