// The page's @reference parser against the table the Python parser runs too.
// Run: node --test tests/js/
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import vm from "node:vm";

const require = createRequire(import.meta.url);
const parserPath = fileURLToPath(new URL("../../static/js/references.js", import.meta.url));
const casesPath = fileURLToPath(new URL("../fixtures/reference_cases.json", import.meta.url));
const { parseReferences } = require(parserPath);
const cases = JSON.parse(readFileSync(casesPath, "utf8"));

function comparable(parsed) {
  return {
    cleanText: parsed.cleanText,
    references: parsed.references.map(({ kind, identifier, raw, start, end }) => ({
      kind,
      identifier,
      raw,
      start,
      end,
    })),
  };
}

test("the table holds the 13 seed cases and 30 more", () => {
  const names = cases.map((c) => c.name);
  const seeds = names.filter((name) => name.startsWith("seed:"));
  assert.equal(new Set(names).size, names.length);
  assert.ok(seeds.length >= 13, `${seeds.length} seed cases`);
  assert.ok(names.length - seeds.length >= 30, `${names.length - seeds.length} own cases`);
});

for (const c of cases) {
  test(`case: ${c.name}`, () => {
    const parsed = parseReferences(c.text);

    assert.deepEqual(comparable(parsed), { cleanText: c.clean_text, references: c.references });
    const codePoints = Array.from(c.text);
    for (const reference of parsed.references) {
      // start/end count code points, as Python does; utf16* index the JavaScript string.
      assert.equal(codePoints.slice(reference.start, reference.end).join(""), reference.raw);
      assert.equal(c.text.slice(reference.utf16Start, reference.utf16End), reference.raw);
    }
  });
}

test("emoji shift UTF-16 indices but not code-point offsets", () => {
  const parsed = parseReferences("\u{1F600}\u{1F600} @abc");

  assert.deepEqual(
    parsed.references.map((r) => [r.start, r.end, r.utf16Start, r.utf16End]),
    [[3, 7, 5, 9]]
  );
});

test("in a browser it sets window.CairnReferences", () => {
  const window = {};
  window.window = window;
  window.self = window;
  vm.createContext(window);
  vm.runInContext(readFileSync(parserPath, "utf8"), window);

  assert.equal(typeof window.CairnReferences.parseReferences, "function");
  // JSON round trip: the sandbox's arrays belong to another realm.
  const parsed = JSON.parse(JSON.stringify(window.CairnReferences.parseReferences("(@abc) hi")));
  assert.deepEqual(comparable(parsed), comparable(parseReferences("(@abc) hi")));
});

test("anything but a string is refused clearly", () => {
  assert.throws(() => parseReferences(undefined), TypeError);
  assert.throws(() => parseReferences(42), TypeError);
});

test("hostile input parses and keeps spans exact", () => {
  const inputs = [
    "@".repeat(50000),
    "@" + "a-".repeat(50000),
    "(".repeat(40000) + "@abc" + ")".repeat(40000),
    "@abc" + " ".repeat(50000) + "(".repeat(20000) + "@def" + ")".repeat(20000),
    "```\n".repeat(20000) + "@abc",
    "\u{1F600} @abc ".repeat(20000),
    "a\uD800 @abc \uDC00#5",
  ];
  for (const text of inputs) {
    const parsed = parseReferences(text);
    for (const reference of parsed.references) {
      assert.equal(text.slice(reference.utf16Start, reference.utf16End), reference.raw);
    }
  }
  assert.equal(parseReferences("(".repeat(40000) + "@abc" + ")".repeat(40000)).cleanText, "");
});

test("the limit counts code points, as Python does", () => {
  // 100,000 code points end just after "@abc" although the string is longer in UTF-16.
  const text = "\u{1F600} ".repeat(49996) + "@abc @def";
  const parsed = parseReferences(text);

  assert.deepEqual(
    parsed.references.map((r) => [r.identifier, r.start]),
    [["abc", 99992]]
  );
});

// The composer's @ popup completes what the parser will read as a reference, no more.
const { referenceAtCaret } = require(parserPath);

test("the identifier at the caret follows the parser's rules", () => {
  assert.deepEqual(referenceAtCaret("see @pre", 8), { at: 4, end: 8, query: "pre" });
  assert.deepEqual(referenceAtCaret("@", 1), { at: 0, end: 1, query: "" });
  assert.deepEqual(referenceAtCaret("(@tea_a3f2) x", 5), { at: 1, end: 10, query: "tea" });
  assert.equal(referenceAtCaret("mail user@example.com", 12), null);
  assert.equal(referenceAtCaret("@1x", 3), null);
  assert.equal(referenceAtCaret("no at sign", 5), null);
  // A no-break space precedes a reference for the parser, and so for the popup.
  assert.equal(parseReferences("a\u00a0@prefer_tea").references.length, 1);
  assert.deepEqual(referenceAtCaret("a\u00a0@pre", 6), { at: 2, end: 6, query: "pre" });
});

// Issue 18: the server's rank spans (POST /api/ui/references/read) make "#1" in "my #1
// crypto is BTC" a rank, as parse_references(text, ranks=...) does in Python; a rank
// does not hide a later "#1" that is a claim, and spans are code points (an emoji first).
test("a #N inside a rank span is no reference", () => {
  const text = "my #1 crypto is BTC, what about #1?";
  const withRanks = parseReferences(text, { ranks: [[3, 5]] });
  assert.deepEqual(withRanks.references.map((r) => [r.raw, r.start]), [["#1", 32]]);
  assert.deepEqual(parseReferences(text).references.map((r) => r.start), [3]);
  const emoji = "\u{1F600} my #2 book, tell me about #3";
  const parsed = parseReferences(emoji, { ranks: [[5, 7]] });
  assert.deepEqual(parsed.references.map((r) => [r.raw, r.start, r.utf16Start]), [["#3", 28, 29]]);
});
