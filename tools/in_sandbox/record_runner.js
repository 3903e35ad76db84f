// judgegraph's completion record for JavaScript test programs (see README.md). Run as `node record_runner.js`:
// it reads the candidate's code (solution.js) and the test (test.js), deletes the three files, then runs the two as one
// module, the test with a `require` of its own that gives the assertion library as it was before the candidate's
// code ran (frozen). The token is written when the event loop empties by itself after the test ran through
// without an exception: `process.exit(0)` never empties it, and an emitted `beforeExit` finds the test's work
// still pending or the test not yet run.
"use strict";
const fs = require("fs");
const Module = require("module");
const path = require("path");

const masked = Buffer.from([__JG_MASKED__]);
const mask = Buffer.from([__JG_MASK__]);
const writeSync = fs.writeSync;
const resources = process.getActiveResourcesInfo.bind(process);
const here = __dirname;
const candidate = fs.readFileSync(path.join(here, "solution.js"), "utf8");
const test = fs.readFileSync(path.join(here, "test.js"), "utf8");
// Every file goes before the candidate's code runs: it could read the test's expected values from test.js.
for (const name of [__filename, path.join(here, "solution.js"), path.join(here, "test.js")]) fs.unlinkSync(name);

const trusted = {};
for (const name of ["assert", "node:assert", "assert/strict", "node:assert/strict"]) {
  trusted[name] = Object.freeze(require(name));
}
// The intrinsics a test compares with, frozen before the candidate's code runs: it cannot rewrite them, under any
// alias (`const p = Set.prototype; p.has = ...`). Object.prototype and Function.prototype are left writable: freezing
// them makes an answer's own `obj.toString = f` fail (an inherited read-only property cannot be shadowed by
// assignment); the test's assertions come from the frozen library above.
const iterators = [[][Symbol.iterator](), new Map()[Symbol.iterator](), new Set()[Symbol.iterator](), ""[Symbol.iterator]()];
for (const shared of [
  JSON, Math, Object, Array, String, Number, Boolean, Symbol, Reflect, Map, Set, WeakMap, WeakSet, Promise, RegExp,
  Array.prototype, String.prototype, Number.prototype, Boolean.prototype, Symbol.prototype, Map.prototype,
  Set.prototype, WeakMap.prototype, WeakSet.prototype, Promise.prototype, RegExp.prototype,
  ...iterators.map((it) => Object.getPrototypeOf(it)), Object.getPrototypeOf(Object.getPrototypeOf(iterators[0])),
]) {
  Object.freeze(shared);
}
const main = new Module(path.join(here, "main.js"), null);
main.filename = path.join(here, "main.js");
main.paths = Module._nodeModulePaths(here);
const own = (name) => (Object.prototype.hasOwnProperty.call(trusted, name) ? trusted[name] : main.require(name));

let ran = false;
let failed = false;
let recorded = false;
process.on("uncaughtException", (error) => {
  failed = true;
  process.stderr.write(String((error && error.stack) || error) + "\n");
  process.exitCode = 1;
});
process.on("unhandledRejection", (error) => {
  failed = true;
  process.stderr.write(String((error && error.stack) || error) + "\n");
  process.exitCode = 1;
});
process.on("beforeExit", () => {
  if (recorded || !ran || failed || (process.exitCode || 0) !== 0 || resources().length > 0) return;
  recorded = true;
  const fd = Number(process.env.JG_RECORD_FD);
  if (!Number.isInteger(fd)) return;
  const out = Buffer.alloc(mask.length);
  for (let i = 0; i < mask.length; i++) out[i] = masked[i] ^ mask[i];
  writeSync(fd, out);
});

const KEY = "__JG_KEY__";
// The test runs in strict mode: an answer's function cannot reach its caller (`add.caller`), whose source would
// be the test's, expected values and all.
const body =
  "return function (exports, require, module, __filename, __dirname) {\n" +
  candidate +
  "\n;(function (require) {\n\"use strict\";\n" +
  test +
  "\n}).call(this, " + KEY + ");\n}";
const wrapped = new Function(KEY, body)(own);
try {
  wrapped.call(main.exports, main.exports, (name) => main.require(name), main, main.filename, here);
  ran = true;
} catch (error) {
  failed = true;
  throw error;
}
