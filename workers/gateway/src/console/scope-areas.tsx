import { readScopes, type Scope, scopeDescriptions, scopes } from "@crm/contracts";

/**
 * Scopes as a person reads them: grouped by the area of the API they open (the name before the last
 * colon), each with its access (read, write, send) and its words from the scope table. A scope of an
 * area without a name here still shows, under its raw area.
 */
const areaNames: Record<string, string> = {
  "crm:metadata": "CRM structure",
  "crm:records": "CRM records",
  tasks: "Tasks",
  notes: "Notes",
  inbox: "Inbox",
  meetings: "Meetings and calls",
  webhooks: "Webhooks",
  integrations: "Integrations",
  usage: "Usage",
  members: "Members",
};

const areaOf = (scope: string) => scope.slice(0, scope.lastIndexOf(":"));
const accessOf = (scope: string) => scope.slice(scope.lastIndexOf(":") + 1);
const areaName = (area: string) => areaNames[area] ?? area;

/** Every area with its scopes, in the scope table's order. */
export const scopeAreas = [...Map.groupBy(scopes, areaOf)].map(([area, inArea]) => ({
  area,
  name: areaName(area),
  scopes: inArea,
}));

/** The presets of the create form: every scope, every read scope, or the ones ticked. */
export const scopePresets = {
  everything: { label: "Everything", hint: `all ${scopes.length} scopes: read, write and send in every area` },
  read: { label: "Read everything", hint: "every area, nothing written or sent" },
  custom: { label: "Choose per area", hint: "only what you tick below" },
} as const;
export type ScopePreset = keyof typeof scopePresets;
export const isScopePreset = (value: string): value is ScopePreset => Object.hasOwn(scopePresets, value);

/** A key's or grant's scopes in a few words per area: "Everything", or "CRM records: read, write". */
export function ScopeSummary({ granted }: { granted: readonly string[] }) {
  const held = new Set(granted);
  if (scopes.every((scope) => held.has(scope))) return <span title={granted.join(" ")}>Everything</span>;
  if (held.size === readScopes.length && readScopes.every((scope) => held.has(scope)))
    return <span title={granted.join(" ")}>Read everything</span>;
  const areas = [...Map.groupBy(granted, areaOf)];
  return (
    <ul class="scopes">
      {areas.map(([area, inArea]) => (
        <li title={inArea.join(" ")}>
          <span class="area">{areaName(area)}</span> {inArea.map(accessOf).join(", ")}
        </li>
      ))}
    </ul>
  );
}

/** The create form's scope choice: three presets, and per area one checkbox per access with its words. */
export function ScopePicker({ preset, checked }: { preset: ScopePreset; checked: readonly string[] }) {
  return (
    <fieldset class="scope-picker">
      <legend>Access</legend>
      {(Object.keys(scopePresets) as ScopePreset[]).map((name) => (
        <label class="preset">
          <input type="radio" name="access" value={name} checked={name === preset} /> <strong>{scopePresets[name].label}</strong>{" "}
          <span class="muted">{scopePresets[name].hint}</span>
        </label>
      ))}
      <div class="scope-areas">
        {scopeAreas.map(({ name, scopes: inArea }) => (
          <fieldset class="area">
            <legend>{name}</legend>
            {inArea.map((scope: Scope) => (
              <label class="scope">
                <input type="checkbox" name="scopes" value={scope} checked={checked.includes(scope)} />{" "}
                <span>
                  <strong>{accessOf(scope)[0]?.toUpperCase() + accessOf(scope).slice(1)}</strong>{" "}
                  <span class="muted">{scopeDescriptions[scope]}</span> <code>{scope}</code>
                </span>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
    </fieldset>
  );
}

/** The scopes a submitted form asks for: the preset's, or the ticked ones under "Choose per area". */
export function scopesOfForm(preset: ScopePreset, ticked: string[]): string[] {
  if (preset === "everything") return [...scopes];
  if (preset === "read") return readScopes;
  return ticked;
}
