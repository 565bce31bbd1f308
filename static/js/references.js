/*
 * Cairn's @reference parser for the page (highlighting and autocomplete).
 *
 * The same parser as apps/contexts/reference_parser.py, rule for rule; read that
 * module's docstring for the rules and the reasons. Both run every case of
 * tests/fixtures/reference_cases.json (node --test tests/js/), so a rule changed on one
 * side must change on the other and gain a case in the table.
 *
 *   CairnReferences.parseReferences(text, {ranks: [[start, end], ...]}) ->
 *     {cleanText, references: [{kind, identifier, raw, start, end, utf16Start, utf16End}]}
 *
 * start/end are code-point offsets, the numbers Python reports, so the server and the
 * page can talk about the same span; utf16Start/utf16End are the JavaScript string
 * indices (text.slice(utf16Start, utf16End) === raw) for highlighting.
 *
 * No build step and no dependencies: a UMD wrapper exports module.exports under node
 * and window.CairnReferences in the browser.
 */
(function (root, factory) {
  "use strict";
  if (typeof module === "object" && module.exports) {
    module.exports = factory();
  } else {
    root.CairnReferences = factory();
  }
})(typeof self !== "undefined" ? self : this, function () {
  "use strict";

  var MAX_PARSE_CHARS = 100000;
  var MIN_IDENTIFIER_LENGTH = 3;
  var MAX_IDENTIFIER_LENGTH = 128;
  var MAX_NUMBER_DIGITS = 18;
  var MAX_REFERENCES = 100;

  // An explicit list, because JavaScript's \s and Python's str.isspace disagree.
  var WHITESPACE =
    " \t\n\r\f\v\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" +
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000";
  var INLINE_SPACE = new Set(WHITESPACE.replace("\n", ""));
  var ALL_SPACE = new Set(WHITESPACE);
  var CLOSERS = {
    "(": ")",
    "[": "]",
    "{": "}",
    "<": ">",
    '"': '"',
    "'": "'",
    "\u201c": "\u201d",
    "\u2018": "\u2019",
    "\u00ab": "\u00bb",
    "*": "*",
  };
  var OPENERS = new Set(Object.keys(CLOSERS));
  // Invisible marks that right-to-left and CJK input methods put before a word count too.
  var PRECEDERS = new Set(WHITESPACE + Object.keys(CLOSERS).join("") + "\u200b\u200e\u200f");
  var TRAILING_PUNCTUATION = new Set(",.;:!?)]}");
  var SEPARATORS = new Set(",;");
  var LEADING_SEPARATORS = new Set(",;:");

  // One alternation, so "@memory:<uuid>" is one uuid token and never also "@memory".
  var TOKEN = new RegExp(
    "@(?:[Mm][Ee][Mm](?:[Oo][Rr][Yy])?:" +
      "([0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}" +
      "|[0-9A-Fa-f]{32})" +
      "|([A-Za-z][A-Za-z0-9_-]*))" +
      "|#([0-9]+)",
    "g"
  );
  var CLAIM_NUMBER = new RegExp("^[Cc][Ll][Aa][Ii][Mm]_([0-9]{1," + MAX_NUMBER_DIGITS + "})$");
  var FENCE_OPEN = /[ ]{0,3}(`{3,}|~{3,})/y;
  var FENCE_CLOSE = /[ ]{0,3}(`{3,}|~{3,})[ \t\r]*/y;
  var BACKTICKS = /`+/g;
  var BLANK_LINE = /\n[ \t\r]*\n/g;
  var WORD_OF_ANY_SCRIPT = /^[\p{L}\p{N}\p{M}]$/u;
  var SURROGATE = /[\uD800-\uDFFF]/;

  function isAsciiAlnum(ch) {
    return (ch >= "0" && ch <= "9") || (ch >= "A" && ch <= "Z") || (ch >= "a" && ch <= "z");
  }

  function isHighSurrogate(code) {
    return code >= 0xd800 && code <= 0xdbff;
  }

  function isLowSurrogate(code) {
    return code >= 0xdc00 && code <= 0xdfff;
  }

  // Loops rather than regular expressions such as /\s+$/, which go quadratic on long
  // runs that do not reach the end.
  function stripSet(text, chars) {
    var start = 0;
    var end = text.length;
    while (start < end && chars.has(text[start])) start++;
    while (end > start && chars.has(text[end - 1])) end--;
    return text.slice(start, end);
  }

  function leadingCount(text, chars) {
    var index = 0;
    while (index < text.length && chars.has(text[index])) index++;
    return index;
  }

  function trailingCount(text, chars) {
    var index = text.length;
    while (index > 0 && chars.has(text[index - 1])) index--;
    return text.length - index;
  }

  function stripLeadingZeros(digits) {
    var index = 0;
    while (index < digits.length && digits[index] === "0") index++;
    return digits.slice(index) || "0";
  }

  /** The UTF-16 index just after the first `count` code points of text. */
  function unitIndexOfCodePoint(text, count) {
    var index = 0;
    var seen = 0;
    while (index < text.length && seen < count) {
      if (
        isHighSurrogate(text.charCodeAt(index)) &&
        index + 1 < text.length &&
        isLowSurrogate(text.charCodeAt(index + 1))
      ) {
        index += 2;
      } else {
        index += 1;
      }
      seen += 1;
    }
    return index;
  }

  /** Converts ascending UTF-16 indices to code-point indices in one forward walk. */
  function codePointCounter(text) {
    var plain = !SURROGATE.test(text);
    var unit = 0;
    var points = 0;
    return function (target) {
      if (plain) return target;
      while (unit < target) {
        if (
          isHighSurrogate(text.charCodeAt(unit)) &&
          unit + 1 < text.length &&
          isLowSurrogate(text.charCodeAt(unit + 1))
        ) {
          unit += 2;
        } else {
          unit += 1;
        }
        points += 1;
      }
      return points;
    };
  }

  function endsCleanly(text, end) {
    if (end >= text.length) return true;
    var follower = text[end];
    if (follower.charCodeAt(0) < 0x80) {
      if (follower === "@" || follower === "_" || isAsciiAlnum(follower)) return false;
      return !(
        (follower === "." || follower === "," || follower === "-") &&
        end + 1 < text.length &&
        isAsciiAlnum(text[end + 1])
      );
    }
    return !WORD_OF_ANY_SCRIPT.test(String.fromCodePoint(text.codePointAt(end)));
  }

  function fencedBlocks(head) {
    var limit = head.length;
    var blocks = [];
    var fence = "";
    var fenceStart = 0;
    var lineStart = 0;
    while (lineStart < limit) {
      var lineEnd = head.indexOf("\n", lineStart);
      if (lineEnd === -1) lineEnd = limit;
      var match;
      if (!fence) {
        FENCE_OPEN.lastIndex = lineStart;
        match = FENCE_OPEN.exec(head);
        if (match) {
          var tick = head.indexOf("`", FENCE_OPEN.lastIndex);
          // A backtick fence's info string cannot hold a backtick: "```x```" is inline.
          if (!(match[1][0] === "`" && tick !== -1 && tick < lineEnd)) {
            fence = match[1];
            fenceStart = lineStart;
          }
        }
      } else {
        FENCE_CLOSE.lastIndex = lineStart;
        match = FENCE_CLOSE.exec(head);
        if (
          match &&
          FENCE_CLOSE.lastIndex === lineEnd &&
          match[1][0] === fence[0] &&
          match[1].length >= fence.length
        ) {
          blocks.push([fenceStart, lineEnd]);
          fence = "";
        }
      }
      lineStart = lineEnd + 1;
    }
    if (fence) blocks.push([fenceStart, limit]);
    return blocks;
  }

  function inlineCodeSpans(head, fences) {
    // A code span cannot cross a paragraph break or a fenced block, so each run of
    // backticks carries the number of such boundaries before it and pairs only within it.
    var boundaries = [];
    var match;
    BLANK_LINE.lastIndex = 0;
    while ((match = BLANK_LINE.exec(head)) !== null) boundaries.push(match.index);
    fences.forEach(function (fence) {
      boundaries.push(fence[0]);
    });
    boundaries.sort(function (a, b) {
      return a - b;
    });

    var runs = [];
    var boundaryIndex = 0;
    var fenceIndex = 0;
    BACKTICKS.lastIndex = 0;
    while ((match = BACKTICKS.exec(head)) !== null) {
      var runStart = match.index;
      while (fenceIndex < fences.length && fences[fenceIndex][1] <= runStart) fenceIndex++;
      if (fenceIndex < fences.length && fences[fenceIndex][0] <= runStart) continue;
      while (boundaryIndex < boundaries.length && boundaries[boundaryIndex] < runStart) {
        boundaryIndex++;
      }
      runs.push([runStart, BACKTICKS.lastIndex, boundaryIndex]);
    }

    var nextSame = new Array(runs.length);
    var lastSeen = new Map();
    for (var index = runs.length - 1; index >= 0; index--) {
      var key = runs[index][2] + ":" + (runs[index][1] - runs[index][0]);
      nextSame[index] = lastSeen.has(key) ? lastSeen.get(key) : -1;
      lastSeen.set(key, index);
    }

    var spans = [];
    var position = 0;
    while (position < runs.length) {
      var closer = nextSame[position];
      if (closer === -1) {
        position += 1;
      } else {
        spans.push([runs[position][0], runs[closer][1]]);
        position = closer + 1;
      }
    }
    return spans;
  }

  /** Sorted, disjoint [start, end) ranges of fenced blocks and inline code spans. */
  function codeRegions(head) {
    var hasBacktick = head.indexOf("`") !== -1;
    if (!hasBacktick && head.indexOf("~~~") === -1) return [];
    var fences = fencedBlocks(head);
    if (!hasBacktick) return fences;
    return fences.concat(inlineCodeSpans(head, fences)).sort(function (a, b) {
      return a[0] - b[0];
    });
  }

  /** Whether text[start:end] is inline spaces with at most one "," or ";" among them. */
  function isSeparatorGap(text, start, end) {
    // From the right, so repeated widening stays linear.
    var index = end - 1;
    while (index >= start && INLINE_SPACE.has(text[index])) index--;
    if (index >= start && SEPARATORS.has(text[index])) index--;
    while (index >= start && INLINE_SPACE.has(text[index])) index--;
    return index < start;
  }

  /** Merge tokens split by spaces and one "," or ";", and widen over a wrapping pair. */
  function removalGroups(text, tokens) {
    var groups = [];
    tokens.forEach(function (token) {
      groups.push([token[0], token[1]]);
      for (;;) {
        var group = groups[groups.length - 1];
        if (groups.length > 1 && isSeparatorGap(text, groups[groups.length - 2][1], group[0])) {
          groups[groups.length - 2][1] = group[1];
          groups.pop();
          continue;
        }
        var before = group[0] - 1;
        var after = group[1];
        if (
          before >= 0 &&
          after < text.length &&
          Object.prototype.hasOwnProperty.call(CLOSERS, text[before]) &&
          CLOSERS[text[before]] === text[after]
        ) {
          group[0] = before;
          group[1] = after + 1;
          continue;
        }
        break;
      }
    });
    return groups;
  }

  /** The cleaned text so far, as pieces, with the look-behind that a join needs. */
  function Output(first) {
    this.pieces = first ? [first] : [];
  }

  Output.prototype.value = function () {
    return this.pieces.join("");
  };

  Output.prototype.trailingSpace = function () {
    var count = 0;
    for (var index = this.pieces.length - 1; index >= 0; index--) {
      var piece = this.pieces[index];
      var spaces = trailingCount(piece, INLINE_SPACE);
      count += spaces;
      if (spaces < piece.length) return [count, piece[piece.length - spaces - 1]];
    }
    return [count, null];
  };

  Output.prototype.dropTrailing = function (count) {
    while (count) {
      var piece = this.pieces.pop();
      if (piece.length > count) {
        this.pieces.push(piece.slice(0, piece.length - count));
        return;
      }
      count -= piece.length;
    }
  };

  Output.prototype.endsWithBlankLine = function () {
    var tail = "";
    for (var index = this.pieces.length - 1; index >= 0; index--) {
      tail = this.pieces[index] + tail;
      if (tail.length >= 2) break;
    }
    return tail === "" || tail.slice(-2) === "\n\n";
  };

  /** Append the text that followed a removed group, tidying the seam. */
  Output.prototype.join = function (segment) {
    var trailing = this.trailingSpace();
    var leftSpace = trailing[0];
    var before = trailing[1];
    var rightSpace = leadingCount(segment, INLINE_SPACE);
    var after = rightSpace < segment.length ? segment[rightSpace] : null;
    var atLineStart = before === null || before === "\n";
    var atLineEnd = after === null || after === "\n";

    if (atLineStart && atLineEnd) {
      this.dropTrailing(leftSpace);
      segment = segment.slice(rightSpace + 1);
      if (segment[0] === "\n" && this.endsWithBlankLine()) segment = segment.slice(1);
    } else if (atLineStart) {
      segment = segment.slice(rightSpace);
      // "@abc: summarise" asks to summarise; the colon addressed the reference.
      if (segment && LEADING_SEPARATORS.has(segment[0])) {
        segment = segment.slice(1 + leadingCount(segment.slice(1), INLINE_SPACE));
      }
    } else if (before !== null && OPENERS.has(before) && !leftSpace) {
      segment = segment.slice(rightSpace);
    } else if (atLineEnd) {
      this.dropTrailing(leftSpace);
      segment = segment.slice(rightSpace);
    } else if (after !== null && TRAILING_PUNCTUATION.has(after) && !rightSpace) {
      this.dropTrailing(leftSpace);
    } else if (leftSpace && rightSpace) {
      segment = segment.slice(rightSpace);
    }
    if (segment) this.pieces.push(segment);
  };

  function removeTokens(text, groups) {
    if (!groups.length) return stripSet(text, ALL_SPACE);
    var out = new Output(text.slice(0, groups[0][0]));
    for (var index = 0; index < groups.length; index++) {
      var nextStart = index + 1 < groups.length ? groups[index + 1][0] : text.length;
      out.join(text.slice(groups[index][1], nextStart));
    }
    return stripSet(out.value(), ALL_SPACE);
  }

  /**
   * Return text without its references, and the references in order of appearance.
   * ``options.ranks`` are the code-point spans the server's facts extractor reads as
   * ranks (POST /api/ui/references/read): a "#N" inside one is no reference, as in
   * parse_references(text, ranks=...) ("my #1 crypto is BTC").
   * @param {string} text
   * @param {{ranks?: Array<Array<number>>}} [options]
   * @returns {{cleanText: string, references: Array<{kind: string, identifier: string,
   *   raw: string, start: number, end: number, utf16Start: number, utf16End: number}>}}
   */
  function parseReferences(text, options) {
    if (typeof text !== "string") throw new TypeError("parseReferences expects a string");
    var ranks = (options && options.ranks) || [];
    if (text.indexOf("@") === -1 && text.indexOf("#") === -1) {
      return { cleanText: stripSet(text, ALL_SPACE), references: [] };
    }

    var length = text.length;
    // Code points never outnumber code units, so only a long text needs the walk.
    var limit = length <= MAX_PARSE_CHARS ? length : unitIndexOfCodePoint(text, MAX_PARSE_CHARS);
    var head = limit < length ? text.slice(0, limit) : text;
    var code = codeRegions(head);
    var codeIndex = 0;
    var tokens = [];
    var references = [];
    var seen = new Set();
    var toCodePoint = codePointCounter(head);
    var rankPoint = ranks.length ? codePointCounter(head) : null;

    var tokenPattern = new RegExp(TOKEN.source, "g");
    var match;
    while (references.length < MAX_REFERENCES && (match = tokenPattern.exec(head)) !== null) {
      var start = match.index;
      var greedyEnd = tokenPattern.lastIndex;
      while (codeIndex < code.length && code[codeIndex][1] <= start) codeIndex++;
      if (codeIndex < code.length && code[codeIndex][0] <= start) {
        tokenPattern.lastIndex = code[codeIndex][1];
        continue;
      }
      if (start && !PRECEDERS.has(text[start - 1])) continue;
      if ((greedyEnd === limit && limit < length) || !endsCleanly(text, greedyEnd)) continue;

      var kind;
      var identifier;
      var end = greedyEnd;
      if (match[1] !== undefined) {
        var hexits = match[1].replace(/-/g, "").toLowerCase();
        kind = "uuid";
        identifier = [
          hexits.slice(0, 8),
          hexits.slice(8, 12),
          hexits.slice(12, 16),
          hexits.slice(16, 20),
          hexits.slice(20),
        ].join("-");
      } else if (match[3] !== undefined) {
        if (match[3].length > MAX_NUMBER_DIGITS) continue;
        // Its own counter: toCodePoint only walks forwards, and is asked for start below.
        var pointStart = rankPoint ? rankPoint(start) : start;
        var pointEnd = rankPoint ? rankPoint(greedyEnd) : greedyEnd;
        if (ranks.length && ranks.some(function (rank) { return rank[0] <= pointStart && pointEnd <= rank[1]; })) continue;
        kind = "number";
        identifier = "claim_" + stripLeadingZeros(match[3]);
      } else {
        var word = match[2];
        var wordEnd = word.length;
        while (wordEnd > 0 && (word[wordEnd - 1] === "-" || word[wordEnd - 1] === "_")) wordEnd--;
        word = word.slice(0, wordEnd);
        if (word.length < MIN_IDENTIFIER_LENGTH || word.length > MAX_IDENTIFIER_LENGTH) continue;
        var lower = word.toLowerCase();
        if (lower === "memory" || lower === "mem") continue;
        end = start + 1 + word.length;
        var claim = CLAIM_NUMBER.exec(word);
        if (claim) {
          kind = "number";
          identifier = "claim_" + stripLeadingZeros(claim[1]);
        } else {
          kind = "friendly";
          identifier = word;
        }
      }

      // The trailing "-" / "_" run is not identifier, yet it goes with the token.
      tokens.push([start, greedyEnd]);
      var key = kind + ":" + identifier;
      if (!seen.has(key)) {
        seen.add(key);
        references.push({
          kind: kind,
          identifier: identifier,
          raw: text.slice(start, end),
          start: toCodePoint(start),
          end: toCodePoint(end),
          utf16Start: start,
          utf16End: end,
        });
      }
    }

    return { cleanText: removeTokens(text, removalGroups(text, tokens)), references: references };
  }

  // What the composer's @ popup completes: the identifier being typed at the caret, by the
  // same rules as the parser (an "@" at the start or after one of PRECEDERS, an identifier
  // of letters, digits, "_" and "-" that starts with a letter). null when the caret is not
  // in one (user@example.com, "@1x"). ``at``/``end`` are UTF-16 indexes of the "@" and of
  // the end of the identifier; ``query`` is what was typed up to the caret.
  var IDENTIFIER_CHAR = /[A-Za-z0-9_-]/;
  function referenceAtCaret(text, caret) {
    var start = caret;
    while (start > 0 && IDENTIFIER_CHAR.test(text[start - 1])) start--;
    var at = start - 1;
    if (at < 0 || text[at] !== "@") return null;
    if (at > 0 && !PRECEDERS.has(text[at - 1])) return null;
    var query = text.slice(start, caret);
    if (query && !/^[A-Za-z]/.test(query)) return null;
    var end = caret;
    while (end < text.length && IDENTIFIER_CHAR.test(text[end])) end++;
    return { at: at, end: end, query: query };
  }

  return { parseReferences: parseReferences, referenceAtCaret: referenceAtCaret };
});
