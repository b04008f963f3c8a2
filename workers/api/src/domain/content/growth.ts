/**
 * How large a tree the HTML tree builder can make of some markup, bounded from above before parsing.
 *
 * The spec's parser copies formatting elements (`a`, `b`, `font`, …) that a block closed into every
 * later block they reach ("reconstruct the active formatting elements"), so the tree can grow with
 * the square of the input: 20 KB of `<b x=1><b x=2>…` followed by `<p>y</p><p>y</p>…` is a million
 * elements, and 60 KB with one long `class` a 50 MB tree (whatwg/html#10772; browsers do it too).
 * parse5 has no limit of its own and builds the whole tree before anything can be checked, so the
 * limit comes first, from one scan that reads tags, attributes, comments and raw text as the
 * tokenizer does and keeps an over-estimate of the list of active formatting elements:
 *
 * - a start tag makes one element, a table part up to three (with the `tbody` and `tr` it implies),
 *   and `</br>` one, `</p>` too unless a `p` is known to be open in button scope;
 * - the scan keeps the elements it knows to be open (every tag that may close one drops it), and a
 *   tag that can close an element (its end tag; `<p>`, `<li>`, `<td>` and the like for the ones
 *   they close) pops every formatting element opened after the latest such open element (after the
 *   first one ever started, if none is known): those cost their weight again, as the next text or
 *   formatting tag re-creates them, and until then every such tag counts them again. An entry's
 *   weight grows with its attributes (they are copied, and `class` split, per copy);
 * - an end tag (or, for `a`, the next `<a>`) removes its entry only when nothing could have kept
 *   it: no table, cell or other scope boundary since, and fewer than eight special elements (the
 *   adoption agency's limit, whose copies are charged too); markers are never cleared; identical
 *   entries are capped at three (the Noah's Ark clause);
 * - after `<svg>`, `<math>`, `<select>`, `<frameset>` or `<script>`, whose parsing this scan does
 *   not follow, every later `<` counts as a tag that pops everything, and no entry leaves.
 *
 * The scan never under-estimates (test/html-tree-growth.test.ts compares it with the parser on
 * random markup); balanced markup, such as this sanitizer's own output, comes out at about its
 * number of elements, and the work is linear in the input.
 */

const formatting = new Set(["a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u"]);
const markers = new Set(["applet", "caption", "marquee", "object", "td", "th", "template"]);
const scopeBoundaries = new Set([...markers, "html", "table"]);
const buttonScopeBoundaries = new Set([...scopeBoundaries, "button"]);
// The spec's "special" elements: only they can be the furthest block that keeps the adoption agency going.
const special = new Set([
  ...["address", "applet", "area", "article", "aside", "base", "basefont", "bgsound", "blockquote", "body", "br", "button"],
  ...["caption", "center", "col", "colgroup", "dd", "details", "dir", "div", "dl", "dt", "embed", "fieldset", "figcaption"],
  ...["figure", "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr"],
  ...["html", "iframe", "img", "input", "keygen", "li", "link", "listing", "main", "marquee", "menu", "meta", "nav"],
  ...["noembed", "noframes", "noscript", "object", "ol", "p", "param", "plaintext", "pre", "script", "search", "section"],
  ...["select", "source", "style", "summary", "table", "tbody", "td", "template", "textarea", "tfoot", "th", "thead"],
  ...["title", "tr", "track", "ul", "wbr", "xmp"],
]);
const headings = ["h1", "h2", "h3", "h4", "h5", "h6"];
const tableParts = ["table", "caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th"];
/** Start tags that close an open `p` ("close a p element"), besides what the entries below add. */
const closesParagraph = new Set([
  ...["address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset"],
  ...["figcaption", "figure", "footer", "form", "header", "hgroup", "hr", "listing", "main", "menu", "nav", "ol", "p"],
  ...["plaintext", "pre", "search", "section", "summary", "table", "ul", "xmp", "li", "dd", "dt", ...headings],
]);
/**
 * What a tag can close, as groups: each group closes its innermost open element (a `</h2>` any
 * heading, a cell or table tag down to the table at most), and a tag with several groups may close
 * one of each (`<li>` an item and a paragraph).
 */
const closedByStartTag = new Map<string, string[][]>([
  ...headings.map((name): [string, string[][]] => [name, [headings]]),
  ["li", [["li"]]],
  ["dd", [["dd", "dt"]]],
  ["dt", [["dd", "dt"]]],
  ["button", [["button"]]],
  ["a", [["a"]]],
  ["nobr", [["nobr"]]],
  ["option", [["option"]]],
  ["optgroup", [["option", "optgroup"]]],
  ...["rb", "rp", "rt", "rtc"].map((name): [string, string[][]] => [name, [["rb", "rp", "rt", "rtc"]]]),
  ...tableParts.map((name): [string, string[][]] => [name, [tableParts]]),
]);
const closedByEndTag = (name: string) => [headings.includes(name) ? headings : tableParts.includes(name) ? tableParts : [name]];
/**
 * Start tags that do not always make an element where they stand (a cell outside a table, a
 * second form or body) or make none (void elements): they are not taken as open, which only
 * makes closing tags reach further back.
 */
const notTakenAsOpen = new Set([
  ...tableParts.filter((name) => name !== "table"),
  ...["form", "html", "body", "head", "frame", "area", "base", "basefont", "bgsound", "br", "embed", "hr", "img", "image"],
  ...["input", "keygen", "link", "meta", "param", "source", "track", "wbr"],
]);
const rawText = new Set(["style", "xmp", "iframe", "noembed", "noframes", "textarea", "title"]);
const unfollowed = new Set(["svg", "math", "select", "frameset", "script"]);
const space = /[\t\n\f\r ]/;
const tagNameEnd = /[\t\n\f\r />]/;
const letter = /[a-zA-Z]/;
/** Elements a tag makes: itself, and for table parts the `tbody` and `tr` they imply; `</p>` and `</br>` make one too. */
const elementsOf = (tag: { name: string; end: boolean }) =>
  tag.end ? (tag.name === "p" || tag.name === "br" ? 1 : 0) : tableParts.includes(tag.name) ? 3 : 1;
/** Copies the adoption agency can make per furthest block (the formatting element and three inner nodes), and its limit. */
const copiesPerBlock = 4;
const adoptionLimit = 8;
/** Attribute characters that weigh as much as one element, roughly, in parse5's and hast's trees. */
const charactersPerElement = 32;

interface Entry {
  name: string;
  weight: number;
  /**
   * Open (in the tree since `openedAt`, a tag count); popped, until the next text or formatting
   * tag re-creates it (other tags may re-create it sooner, so until then every closing tag counts
   * it again); or floating, re-created at a time this scan cannot know (behind a marker it cannot
   * see cleared), so every closing tag counts it again for good.
   */
  state: "open" | "popped" | "floating";
  openedAt: number;
  removed: boolean;
  /** Markers seen when the entry was added: entries of the current epoch are after the last marker. */
  epoch: number;
  /** Special start tags seen when the entry was added, and the last scope boundary then. */
  specialsAtStart: number;
  boundaryAtStart: number;
}

interface Tag {
  name: string;
  end: boolean;
  attributes: string;
  /** Index just after the tag's `>`, or -1 when the input ends inside it (the tokenizer drops it) or it is longer than asked. */
  next: number;
}

/** Reads the tag at `start` (a `<` followed by a letter, or `</` and a letter) as the tokenizer does. */
function readTag(html: string, start: number, within = html.length): Tag {
  const limit = Math.min(html.length, start + within);
  const end = html[start + 1] === "/";
  let i = start + (end ? 2 : 1);
  const nameStart = i;
  while (i < limit && !tagNameEnd.test(html[i] as string)) i++;
  const name = html.slice(nameStart, i).toLowerCase();
  const attributesStart = i;
  const unfinished = { name, end, attributes: "", next: -1 };
  for (;;) {
    while (i < limit && (space.test(html[i] as string) || html[i] === "/")) i++;
    if (i >= limit) return unfinished;
    if (html[i] === ">") return { name, end, attributes: html.slice(attributesStart, i), next: i + 1 };
    // The attribute's name: its first character may be anything, even `=`.
    i++;
    while (i < limit && !/[\t\n\f\r />=]/.test(html[i] as string)) i++;
    while (i < limit && space.test(html[i] as string)) i++;
    if (html[i] !== "=") continue;
    i++;
    while (i < limit && space.test(html[i] as string)) i++;
    const quote = html[i];
    if (quote === '"' || quote === "'") {
      const close = html.indexOf(quote, i + 1);
      if (close < 0 || close >= limit) return unfinished;
      i = close + 1;
    } else {
      while (i < limit && !/[\t\n\f\r >]/.test(html[i] as string)) i++;
    }
  }
}

/** Where a comment that starts at `start` (`<!--`) ends, as the tokenizer decides it. */
function commentEnd(html: string, start: number): number {
  const body = start + 4;
  if (html[body] === ">") return body + 1;
  if (html.startsWith("->", body)) return body + 2;
  const ends = [html.indexOf("-->", body), html.indexOf("--!>", body)].filter((index) => index >= 0);
  if (ends.length === 0) return html.length;
  const first = Math.min(...ends);
  return first + (html.startsWith("-->", first) ? 3 : 4);
}

/** Whether text makes character tokens other than whitespace (character references, which may be whitespace, left out). */
const reconstructingText = (text: string) => /[^\t\n\f\r \0]/.test(text.replace(/&[#a-zA-Z0-9]*;?/g, ""));

const rawTextEnd = new Map([...rawText].map((name) => [name, new RegExp(`</${name}[\\t\\n\\f\\r />]`, "gi")]));

/**
 * An upper bound of the elements (in element-sized units) the tree builder makes of `html`. The
 * scan stops as soon as the bound passes `stopAbove`.
 */
export function treeSizeBound(html: string, stopAbove = Number.POSITIVE_INFINITY): number {
  // Open entries in the order they were opened, popped ones awaiting re-creation, and the live weight.
  const opened: Entry[] = [];
  let popped: Entry[] = [];
  let liveWeight = 0;
  // Counted again by every closing tag: popped and floating entries.
  let uncertainWeight = 0;
  // Entries by name, and by name and attributes per marker epoch (entries after the last marker).
  const byName = new Map<string, Entry[]>();
  const byKey = new Map<string, Entry[]>();
  const firstStart = new Map<string, number>();
  // Elements taken as open, by name and all in order: never one the parser has closed (every tag
  // that may close one removes it), so the latest of a name is at most as late as the real one.
  const openByName = new Map<string, number[]>();
  const openInOrder: { name: string; at: number }[] = [];
  let lastButtonBoundary = -1;
  let epoch = 0;
  // The html, head and body elements are always there.
  let units = 3;
  let tags = 0;
  let specials = 0;
  let lastBoundary = -1;

  const remove = (entry: Entry) => {
    entry.removed = true;
    liveWeight -= entry.weight;
    if (entry.state !== "open") uncertainWeight -= entry.weight;
  };
  const live = (map: Map<string, Entry[]>, key: string) => {
    const found = map.get(key)?.filter((entry) => !entry.removed) ?? [];
    map.set(key, found);
    return found;
  };
  /**
   * The adoption agency for the latest entry named `name`: its copies are charged, and whether it
   * is removed is returned. The search ignores markers, which this scan may see where the parser
   * does not (a `<td>` outside a table), so no copy goes uncounted; removal needs the entry to be
   * after the last marker, so none is removed that the parser keeps.
   */
  const adopt = (name: string) => {
    const entry = live(byName, name).at(-1);
    if (!entry) return undefined;
    units += copiesPerBlock * Math.min(adoptionLimit, specials - entry.specialsAtStart);
    return entry.epoch === epoch && adoptionEnds(entry) ? entry : undefined;
  };
  // The adoption agency stops after eight furthest blocks (special elements), leaving a copy behind.
  const adoptionEnds = (entry: Entry) => specials - entry.specialsAtStart < adoptionLimit;
  const latestOpen = (name: string) => openByName.get(name)?.at(-1);
  /**
   * When the element a group closes was opened, at the earliest: the latest one taken as open
   * (for table parts, the latest table), or else the first of its names ever started.
   */
  const closedSince = (group: readonly string[]) => {
    const taken = (group === tableParts ? ["table"] : group).map(latestOpen).filter((at) => at !== undefined);
    if (taken.length > 0) return Math.max(...taken);
    return Math.min(...group.map((name) => firstStart.get(name) ?? Number.POSITIVE_INFINITY));
  };
  /** A tag that may close an element of each group, and everything opened after it. */
  const pops = (groups: readonly (readonly string[])[]) => {
    const since = Math.min(...groups.map(closedSince));
    for (let last = openInOrder.at(-1); last && last.at >= since; last = openInOrder.at(-1)) {
      openInOrder.pop();
      openByName.get(last.name)?.pop();
    }
    units += uncertainWeight;
    for (let last = opened.at(-1); last && (last.removed || last.openedAt > since); last = opened.at(-1)) {
      opened.pop();
      if (last.removed) continue;
      units += last.weight;
      last.state = "popped";
      uncertainWeight += last.weight;
      popped.push(last);
    }
  };
  /**
   * Text other than whitespace, and formatting start tags, re-create the popped entries. Behind a
   * marker, the parser re-creates them only once the marker is cleared, which this scan does not
   * see: they float.
   */
  const recreate = (at: number) => {
    for (const entry of popped.reverse()) {
      if (entry.removed) continue;
      if (entry.epoch !== epoch) {
        entry.state = "floating";
        continue;
      }
      entry.state = "open";
      entry.openedAt = at;
      uncertainWeight -= entry.weight;
      opened.push(entry);
    }
    popped = [];
  };

  let i = 0;
  while (i < html.length && units <= stopAbove) {
    const open = html.indexOf("<", i);
    if (open < 0) break;
    if (open > i && reconstructingText(html.slice(i, open))) recreate(tags + 0.5);
    if (html.startsWith("<!--", open)) {
      i = commentEnd(html, open);
      continue;
    }
    const after = html[open + 1] ?? "";
    if (!letter.test(after) && !(after === "/" && letter.test(html[open + 2] ?? ""))) {
      // `<!…>`, `<?…>` and `</` without a letter are bogus comments up to the next `>`; other `<` are text.
      const bogus = after === "!" || after === "?" || after === "/";
      if (!bogus) recreate(tags + 0.5);
      i = bogus ? html.indexOf(">", open) + 1 || html.length : open + 1;
      continue;
    }
    const tag = readTag(html, open);
    if (tag.next < 0) break;
    tags++;
    i = tag.next;
    // `</p>` makes a `p` unless one is open and in button scope.
    const paragraphOpen = (latestOpen("p") ?? -1) > lastButtonBoundary;
    units += tag.end && tag.name === "p" && paragraphOpen ? 0 : elementsOf(tag);
    if (tag.end) {
      pops(closedByEndTag(tag.name));
      const entry = formatting.has(tag.name) ? adopt(tag.name) : undefined;
      // Out of scope (a table, cell or the like opened since), the end tag is ignored.
      if (entry && entry.boundaryAtStart === lastBoundary) remove(entry);
      continue;
    }
    if (unfollowed.has(tag.name)) return units + unfollowedUnits(html.slice(open), liveWeight, stopAbove - units);
    const closes = [...(closesParagraph.has(tag.name) ? [["p"]] : []), ...(closedByStartTag.get(tag.name) ?? [])];
    if (closes.length > 0) pops(closes);
    // After <plaintext> everything is text (which re-creates what was popped, already counted).
    if (tag.name === "plaintext") break;
    if (!firstStart.has(tag.name)) firstStart.set(tag.name, tags);
    if (scopeBoundaries.has(tag.name)) lastBoundary = tags;
    if (buttonScopeBoundaries.has(tag.name)) lastButtonBoundary = tags;
    if (!notTakenAsOpen.has(tag.name)) {
      openInOrder.push({ name: tag.name, at: tags });
      const named = openByName.get(tag.name) ?? [];
      named.push(tags);
      openByName.set(tag.name, named);
    }
    if (special.has(tag.name)) specials++;
    if (markers.has(tag.name)) epoch++;
    if (formatting.has(tag.name)) {
      // A new link or nobr runs the adoption agency on the open one; the link is then removed, in or out of scope.
      const previous = tag.name === "a" || tag.name === "nobr" ? adopt(tag.name) : undefined;
      if (previous && tag.name === "a") remove(previous);
      recreate(tags);
      const identical = live(byKey, `${epoch} ${tag.name} ${tag.attributes.trim()}`);
      if (identical.length >= 3 && identical[0]) remove(identical[0]);
      const weight = 1 + Math.ceil(tag.attributes.length / charactersPerElement);
      const entry: Entry = {
        name: tag.name,
        weight,
        state: "open",
        openedAt: tags,
        removed: false,
        epoch,
        specialsAtStart: specials,
        boundaryAtStart: lastBoundary,
      };
      opened.push(entry);
      liveWeight += weight;
      const named = byName.get(tag.name) ?? [];
      named.push(entry);
      byName.set(tag.name, named);
      identical.push(entry);
    }
    const rawEnd = rawTextEnd.get(tag.name);
    if (rawEnd) {
      rawEnd.lastIndex = i;
      i = rawEnd.exec(html)?.index ?? html.length;
    }
  }
  return units;
}

/** Attribute text read per tag in the part this scan cannot follow; a longer tag weighs as the whole rest. */
const longestTagRead = 2048;

/**
 * The rest of the input when this scan cannot follow the parser: every `<` may be a tag that pops
 * and re-creates the whole list, and every formatting start tag joins it for good, weighed by its
 * attributes as far as they go (a tag whose end is not in sight weighs as everything left).
 */
function unfollowedUnits(rest: string, listWeight: number, stopAbove: number): number {
  let units = 0;
  let weight = listWeight;
  for (let i = rest.indexOf("<"); i >= 0 && units <= stopAbove; i = rest.indexOf("<", i + 1)) {
    // Every `<` may be a table part (three elements) and pop and re-create everything.
    units += 3 + weight;
    const [, slash, tagName] = /^<(\/?)([a-zA-Z][^\t\n\f\r />]*)/.exec(rest.slice(i, i + 12)) ?? [];
    const name = tagName?.toLowerCase();
    if (!name || !formatting.has(name) || !tagNameEnd.test(rest[i + 1 + (slash?.length ?? 0) + name.length] ?? ">")) continue;
    // A formatting end tag (or a new link) may run the adoption agency and copy as it goes.
    if (slash || name === "a") units += copiesPerBlock * adoptionLimit;
    if (slash) continue;
    const tag = readTag(rest, i, longestTagRead);
    const length = tag.next < 0 ? rest.length - i : tag.next - i;
    weight += 1 + Math.ceil(length / charactersPerElement);
  }
  return units;
}
