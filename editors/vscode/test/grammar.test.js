// Tokenizes every .card file of the repository with the extension's TextMate grammar, as VS Code
// does (vscode-textmate on the Oniguruma regex engine), and checks the scopes against a small
// scanner that follows the lexer of dsl/grammar.lark: strings are double-quoted and end on their
// line, `#` outside a string starts a comment to the end of the line, braces nest.
//
// Run: node grammar.test.js (after `npm ci` here). PILLBOX_UPDATE_GOLDENS=1 rewrites the golden.
'use strict';

const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { before, test } = require('node:test');
const vsctm = require('vscode-textmate');
const oniguruma = require('vscode-oniguruma');

const EXTENSION = path.resolve(__dirname, '..');
const REPOSITORY = path.resolve(EXTENSION, '..', '..');
const GRAMMAR_PATH = path.join(EXTENSION, 'syntaxes', 'pillbox.tmLanguage.json');
const GOLDEN_SOURCE = path.join(REPOSITORY, 'tests', 'specimens', 'coma-ward', 'hallucinations.card');
const GOLDEN_PATH = path.join(__dirname, 'golden', 'hallucinations.card.scopes');
const TOKENIZE_BUDGET_MS = 1000;
const MAX_REPORTED = 20;

// The lexer's WORD, /[^\W\d][\w'-]*/ in Python's Unicode regex syntax.
const WORD_AT_LINE_START = /^[ \t]*([\p{L}\p{M}_][\p{L}\p{M}\p{N}_'-]*)[ \t]+"/u;

/** Every .card file under a folder, sorted so failures always come in the same order. */
function cardFiles(folder) {
  if (!fs.existsSync(folder)) return [];
  const found = [];
  for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) found.push(...cardFiles(full));
    else if (entry.name.endsWith('.card')) found.push(full);
  }
  return found.sort();
}

function allCardFiles() {
  const files = cardFiles(path.join(REPOSITORY, 'tests', 'specimens'));
  const content = path.join(REPOSITORY, 'content');
  for (const pack of fs.readdirSync(content).sort()) {
    files.push(...cardFiles(path.join(content, pack, 'cards')));
  }
  return files;
}

/** What each character of a line is to the lexer, and the brace depth after the line. */
function classify(line, depth) {
  const kinds = new Array(line.length).fill('code');
  let i = 0;
  while (i < line.length) {
    const c = line[i];
    if (c === '#') {
      kinds.fill('comment', i);
      break;
    }
    if (c === '"') {
      const start = i;
      i += 1;
      while (i < line.length && line[i] !== '"') i += line[i] === '\\' ? 2 : 1;
      i = Math.min(i + 1, line.length);
      kinds.fill('string', start, i);
      continue;
    }
    if (c === '{') depth += 1;
    if (c === '}') depth = Math.max(0, depth - 1);
    i += 1;
  }
  return { kinds, depth };
}

function scopesAt(tokens, column) {
  for (const token of tokens) {
    if (token.startIndex <= column && column < token.endIndex) return token.scopes;
  }
  return [];
}

const has = (scopes, prefix) => scopes.some((scope) => scope.startsWith(prefix));

/** The scopes still open between one line and the next. */
function openScopes(grammar, state) {
  return grammar.tokenizeLine('', state).tokens[0].scopes;
}

let grammar;
let tokenized; // [{file, lines: [{text, tokens}], endScopes: [scopes after each line]}]
let tokenizeMs;
let coldMs;

function cpuMsSince(started) {
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / 1e3;
}

before(async () => {
  const onigPath = path.join(path.dirname(require.resolve('vscode-oniguruma')), 'onig.wasm');
  const wasm = fs.readFileSync(onigPath);
  await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
  const registry = new vsctm.Registry({
    onigLib: Promise.resolve({
      createOnigScanner: (patterns) => new oniguruma.OnigScanner(patterns),
      createOnigString: (text) => new oniguruma.OnigString(text),
    }),
    loadGrammar: async (scopeName) =>
      scopeName === 'source.pillbox'
        ? vsctm.parseRawGrammar(fs.readFileSync(GRAMMAR_PATH, 'utf8'), GRAMMAR_PATH)
        : null,
  });
  grammar = await registry.loadGrammar('source.pillbox');

  const sources = allCardFiles().map((file) => ({
    file,
    text: fs.readFileSync(file, 'utf8').replace(/\r\n?/g, '\n').split('\n'),
  }));
  // VS Code's tokenizer is warm from the files opened before, and V8 takes about a thousand lines
  // to compile vscode-textmate's hot paths: the timed pass is the second over every file, so the
  // figure is this grammar's work. CPU time, not wall time: the suite shares its cores.
  let started = process.cpuUsage();
  tokenized = tokenizeAll(sources);
  coldMs = cpuMsSince(started);
  started = process.cpuUsage();
  tokenizeAll(sources);
  tokenizeMs = cpuMsSince(started);
  for (const entry of tokenized) entry.endScopes = entry.states.map((s) => openScopes(grammar, s));
});

function tokenizeAll(sources) {
  return sources.map(({ file, text }) => {
    let state = vsctm.INITIAL;
    const lines = [];
    const states = [];
    for (const line of text) {
      const result = grammar.tokenizeLine(line, state);
      lines.push({ text: line, tokens: result.tokens });
      state = result.ruleStack;
      states.push(state);
    }
    return { file, lines, states };
  });
}

function where(file, index) {
  return `${path.relative(REPOSITORY, file)}:${index + 1}`;
}

function assertNoProblems(problems) {
  const shown = problems.slice(0, MAX_REPORTED).join('\n');
  const more = problems.length > MAX_REPORTED ? `\n… and ${problems.length - MAX_REPORTED} more` : '';
  assert.equal(problems.length, 0, `${shown}${more}`);
}

test('the grammar is valid JSON with every include defined and every regex compiling', () => {
  const raw = JSON.parse(fs.readFileSync(GRAMMAR_PATH, 'utf8'));
  assert.equal(raw.scopeName, 'source.pillbox');
  const problems = [];
  const visit = (node, at) => {
    if (Array.isArray(node)) return node.forEach((child, i) => visit(child, `${at}[${i}]`));
    if (node === null || typeof node !== 'object') return;
    if (typeof node.include === 'string' && node.include.startsWith('#')) {
      if (!(node.include.slice(1) in raw.repository)) problems.push(`${at}: no rule ${node.include}`);
    }
    for (const key of ['match', 'begin', 'end', 'while']) {
      if (typeof node[key] !== 'string') continue;
      try {
        new oniguruma.OnigScanner([node[key]]).dispose();
      } catch (error) {
        problems.push(`${at}.${key}: ${error.message}`);
      }
    }
    for (const [key, child] of Object.entries(node)) visit(child, `${at}.${key}`);
  };
  visit(raw, 'grammar');
  assertNoProblems(problems);
});

test('there are card files to tokenize', () => {
  assert.ok(tokenized.length >= 20, `only ${tokenized.length} .card files found`);
});

test(`every card file tokenizes in under ${TOKENIZE_BUDGET_MS} ms in all`, (t) => {
  const lines = tokenized.reduce((sum, entry) => sum + entry.lines.length, 0);
  t.diagnostic(
    `${tokenized.length} files, ${lines} lines: ${tokenizeMs.toFixed(0)} ms of CPU warm, ` +
      `${coldMs.toFixed(0)} ms the first time`,
  );
  assert.ok(
    tokenizeMs < TOKENIZE_BUDGET_MS,
    `${tokenized.length} files, ${lines} lines took ${tokenizeMs.toFixed(0)} ms of CPU`,
  );
});

test('hostile lines tokenize without backtracking for ever', (t) => {
  // Each is a line a broken or hostile pack may hold, long enough that a regex which
  // backtracks over the rest of the line for each position would take minutes.
  const lines = [
    'item '.repeat(4000),
    '"'.repeat(8001),
    '"a\\'.repeat(3000),
    'when you end your move here '.repeat(700),
    `item "x" { use { ${'1..2 +3 d6 '.repeat(1500)}`,
    `item "x" { ${'; may'.repeat(3000)}`,
    `if ${'a and '.repeat(3000)}`,
  ];
  const started = process.cpuUsage();
  for (const line of lines) grammar.tokenizeLine(line, vsctm.INITIAL);
  const ms = cpuMsSince(started);
  t.diagnostic(`${lines.length} hostile lines: ${ms.toFixed(0)} ms of CPU`);
  assert.ok(ms < TOKENIZE_BUDGET_MS, `${lines.length} hostile lines took ${ms.toFixed(0)} ms of CPU`);
});

test('comments, strings and the code between get the scopes the lexer gives them', () => {
  const problems = [];
  for (const { file, lines } of tokenized) {
    let depth = 0;
    lines.forEach(({ text, tokens }, index) => {
      const classified = classify(text, depth);
      depth = classified.depth;
      const column = classified.kinds.findIndex((kind, at) => {
        const scopes = scopesAt(tokens, at);
        const isComment = has(scopes, 'comment.');
        const isString = has(scopes, 'string.');
        return (
          (kind === 'comment' && !isComment) ||
          (kind === 'string' && (!isString || isComment)) ||
          (kind === 'code' && (isString || isComment))
        );
      });
      if (column >= 0) {
        const scopes = scopesAt(tokens, column).join(' ');
        problems.push(`${where(file, index)}:${column + 1}: a ${classified.kinds[column]} has ${scopes}`);
      }
    });
  }
  assertNoProblems(problems);
});

test('no line ends inside a string or a comment', () => {
  const problems = [];
  for (const { file, endScopes } of tokenized) {
    endScopes.forEach((scopes, index) => {
      if (has(scopes, 'string.') || has(scopes, 'comment.')) {
        problems.push(`${where(file, index)}: the next line starts in ${scopes.join(' ')}`);
      }
    });
  }
  assertNoProblems(problems);
});

test('the braces of every well-formed file close where the file ends', () => {
  const problems = [];
  for (const { file, endScopes } of tokenized) {
    if (file.includes(`${path.sep}bad${path.sep}`)) continue;
    const last = endScopes[endScopes.length - 1];
    if (last.length !== 1) problems.push(`${where(file, endScopes.length - 1)}: ${last.join(' ')} still open`);
  }
  assertNoProblems(problems);
});

test("a card's kind is a keyword and its title a card's name, whatever the ruleset's kinds", () => {
  const problems = [];
  let cards = 0;
  for (const { file, lines } of tokenized) {
    let depth = 0;
    lines.forEach(({ text, tokens }, index) => {
      const atTop = depth === 0;
      depth = classify(text, depth).depth;
      const header = atTop && WORD_AT_LINE_START.exec(text);
      if (!header) return;
      cards += 1;
      const kindColumn = text.indexOf(header[1]);
      const kindScopes = scopesAt(tokens, kindColumn);
      if (!has(kindScopes, 'keyword.')) {
        problems.push(`${where(file, index)}: kind ${header[1]} has ${kindScopes.join(' ')}`);
      }
      const titleScopes = scopesAt(tokens, header[0].length);
      if (/^[^"]*"(?:[^"\\]|\\.)*"/.test(text) && !has(titleScopes, 'entity.name.type.card')) {
        problems.push(`${where(file, index)}: the title has ${titleScopes.join(' ')}`);
      }
    });
  }
  assert.ok(cards > 300, `only ${cards} card headers found`);
  assertNoProblems(problems);
});

// Known lines of the bundled content and the specimens: [file, line, the text, a scope it has].
const KNOWN = [
  ['content/coma-ward/cards/rooms.card', 8, 'room', 'keyword.other.kind.pillbox'],
  ['content/coma-ward/cards/rooms.card', 8, 'Sterilisation Room', 'entity.name.type.card.pillbox'],
  ['content/coma-ward/cards/rooms.card', 10, 'when revealed', 'entity.name.tag.block.pillbox'],
  ['content/coma-ward/cards/rooms.card', 12, 'check', 'keyword.control.pillbox'],
  ['content/coma-ward/cards/rooms.card', 13, '0', 'constant.numeric.integer.pillbox'],
  ['content/coma-ward/cards/rooms.card', 18, '1+', 'constant.numeric.range.pillbox'],
  ['content/coma-ward/cards/rooms.card', 24, 'scalded', 'entity.name.function.test.pillbox'],
  ['content/coma-ward/cards/rooms.card', 26, '# the steam', 'comment.line.number-sign.pillbox'],
  ['content/coma-ward/cards/rooms.card', 28, '==', 'keyword.operator.comparison.pillbox'],
  ['content/coma-ward/cards/rooms.card', 48, 'if', 'keyword.control.if.pillbox'],
  ['tests/specimens/coma-ward/hallucinations.card', 7, 'Call out to it', 'entity.name.section.option.pillbox'],
  ['tests/specimens/coma-ward/hallucinations.card', 19, '0..1', 'constant.numeric.range.pillbox'],
  ['tests/specimens/coma-ward/hallucinations.card', 33, 'Back away', 'variable.other.option.pillbox'],
  ['tests/specimens/coma-ward/hallucinations.card', 43, 'no', 'constant.language.answer.pillbox'],
  ['tests/specimens/coma-ward/hallucinations.card', 50, 'variant', 'keyword.other.variant.pillbox'],
  ['content/comanauts/cards/environment.card', 15, 'Jammed Bulkhead', 'variable.other.card.pillbox'],
  ['content/comanauts/cards/environment.card', 28, 'and', 'keyword.operator.logical.pillbox'],
  ['tests/specimens/bad/unterminated-string.card', 3, 'This text', 'invalid.illegal.unclosed-string.pillbox'],
  ['tests/specimens/bad/unterminated-string.card', 4, 'option', 'keyword.control.option.pillbox'],
];

test('known lines get the scopes a designer expects', () => {
  const problems = [];
  for (const [relative, line, text, scope] of KNOWN) {
    const entry = tokenized.find(({ file }) => path.relative(REPOSITORY, file) === relative);
    if (!entry) {
      problems.push(`${relative}: not tokenized`);
      continue;
    }
    const { text: source, tokens } = entry.lines[line - 1];
    const column = source.indexOf(text);
    if (column < 0) {
      problems.push(`${relative}:${line}: ${JSON.stringify(text)} is not on the line`);
      continue;
    }
    for (let c = column; c < column + text.length; c += 1) {
      if (!scopesAt(tokens, c).includes(scope)) {
        problems.push(`${relative}:${line}: ${JSON.stringify(text)} lacks ${scope}: ${scopesAt(tokens, c).join(' ')}`);
        break;
      }
    }
  }
  assertNoProblems(problems);
});

test('dice get a dice scope wherever a roll names them', () => {
  const problems = [];
  let rolls = 0;
  for (const { file, lines } of tokenized) {
    lines.forEach(({ text, tokens }, index) => {
      const roll = /^[ \t]*roll[ \t]+(\d*d\d+)\b/.exec(text);
      if (!roll) return;
      rolls += 1;
      const scopes = scopesAt(tokens, roll[0].length - 1);
      if (!scopes.includes('constant.numeric.dice.pillbox')) {
        problems.push(`${where(file, index)}: ${roll[1]} has ${scopes.join(' ')}`);
      }
    });
  }
  assert.ok(rolls > 10, `only ${rolls} roll lines found`);
  assertNoProblems(problems);
});

// Lines no bundled card has, each with a piece of it and a scope that piece has (or, with `!`,
// has not).
const SYNTHETIC = [
  ['    say "a \\"quoted\\" word" # x', '\\"', 'constant.character.escape.pillbox'],
  ['    say "a \\"quoted\\" word" # x', 'word', 'string.quoted.double.pillbox'],
  ['    say "a \\"quoted\\" word" # x', '# x', 'comment.line.number-sign.pillbox'],
  ['    say "a # is no comment here"', '# is', 'string.quoted.double.pillbox'],
  ["    carry Healer's kit", "'", '!invalid.illegal.single-quote.pillbox'],
  ["    say 'hello'", "'", 'invalid.illegal.single-quote.pillbox'],
  ['    roll 2d6 {', '2d6', 'constant.numeric.dice.pillbox'],
  ['    gain d6x 1', 'd6', '!constant.numeric.dice.pillbox'],
  ['    lose health -2', '-2', 'constant.numeric.integer.signed.pillbox'],
  ['item "A" { } tool "B" { }', 'tool', 'keyword.other.kind.pillbox'],
  ['item "A" { } tool "B" { }', 'B', 'entity.name.type.card.pillbox'],
  ['item "A" { use { discard this; gain health 1 } }', 'use', 'entity.name.tag.block.pillbox'],
  ['item "A" { when revealed { if a >= 2 or not b { x } else if c { y } } }', 'or', 'keyword.operator.logical.pillbox'],
  ['item "A" { when revealed { if a >= 2 or not b { x } else if c { y } } }', 'else', 'keyword.control.else.pillbox'],
  ['item "A" { when revealed { x } else { y } }', 'else', 'keyword.control.else.pillbox'],
  ['    check focus { pass { gain focus 1 } fail { } }', 'fail', 'entity.name.tag.block.pillbox'],
];

test('lines no bundled card has get their scopes too', () => {
  const problems = [];
  for (const [line, piece, expected] of SYNTHETIC) {
    const { tokens } = grammar.tokenizeLine(line, vsctm.INITIAL);
    const scopes = scopesAt(tokens, line.indexOf(piece));
    const wanted = !expected.startsWith('!');
    if (scopes.includes(expected.replace(/^!/, '')) !== wanted) {
      problems.push(`${JSON.stringify(line)}: ${JSON.stringify(piece)} has ${scopes.join(' ')}`);
    }
  }
  assertNoProblems(problems);
});

/** One specimen as text: each line, then each of its tokens with its scopes below the root. */
function snapshot(entry) {
  const out = [];
  entry.lines.forEach(({ text, tokens }, index) => {
    out.push(`${index + 1}: ${text}`);
    for (const token of tokens) {
      const piece = text.slice(token.startIndex, token.endIndex);
      if (piece.trim() === '') continue;
      out.push(`    ${JSON.stringify(piece)} ${token.scopes.slice(1).join(' ')}`);
    }
  });
  return `${out.join('\n')}\n`;
}

test('a specimen tokenizes as its golden file says', () => {
  const entry = tokenized.find(({ file }) => file === GOLDEN_SOURCE);
  assert.ok(entry, `${GOLDEN_SOURCE} was not tokenized`);
  const actual = snapshot(entry);
  if (process.env.PILLBOX_UPDATE_GOLDENS) {
    fs.mkdirSync(path.dirname(GOLDEN_PATH), { recursive: true });
    fs.writeFileSync(GOLDEN_PATH, actual);
  }
  assert.ok(fs.existsSync(GOLDEN_PATH), 'no golden file: run with PILLBOX_UPDATE_GOLDENS=1');
  const expected = fs.readFileSync(GOLDEN_PATH, 'utf8');
  if (actual !== expected) {
    const a = actual.split('\n');
    const e = expected.split('\n');
    const first = a.findIndex((line, i) => line !== e[i]);
    assert.fail(
      `the scopes differ from ${path.relative(REPOSITORY, GOLDEN_PATH)} first at its line ${first + 1}:\n` +
        `  golden: ${e[first]}\n  now:    ${a[first]}\n` +
        'if the change is meant, rewrite it with PILLBOX_UPDATE_GOLDENS=1',
    );
  }
});
