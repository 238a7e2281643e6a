#!/usr/bin/env bash
# npm run pack:check (a .ci/run step): packs the package as npm would publish it (`npm pack`,
# which builds dist/ first: the `prepack` script), installs the tarball into a fresh CommonJS
# project and a fresh ESM project, runs the CLI and the library from each, and runs the example
# engine (examples/engine) on the installed package. Nothing may need tsx or TypeScript at run
# time: neither is installed in those projects, and the CLI must run compiled code.
# Usage: scripts/pack-check.sh [--no-build]   (--no-build: pack the dist/ already built)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$PWD
WORK=$(mktemp -d "${TMPDIR:-/tmp}/rulewright-pack.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
t0=$SECONDS
fail() { echo "pack-check: $*" >&2; exit 1; }

if [ "${1:-}" = "--no-build" ]; then
  [ -f dist/cli/main.js ] || fail "no dist/: run npm run build"
  npm pack --ignore-scripts --loglevel warn --pack-destination "$WORK" >/dev/null
else
  npm pack --loglevel warn --pack-destination "$WORK" >/dev/null
fi
TGZ=$(ls "$WORK"/rulewright-*.tgz)
tar tzf "$TGZ" > "$WORK/files.txt"
echo "pack-check: packed $(basename "$TGZ") ($(du -k "$TGZ" | cut -f1) KiB, $(wc -l < "$WORK/files.txt") files) in $((SECONDS - t0)) s"
# the tarball holds the compiled code and the bundled editions, no sources or tests
for f in dist/cli/main.js dist/index.d.ts dist/editions/his/index.d.ts dsl/his/edition.rules bin/rulewright.mjs; do
  grep -qx "package/$f" "$WORK/files.txt" || fail "the tarball has no $f"
done
if grep -E '^package/(compiler|test|generated|bench|scripts|examples)/|\.ts$' "$WORK/files.txt" | grep -v '\.d\.ts$' > "$WORK/extra.txt"; then
  fail "the tarball holds sources or tests: $(head -3 "$WORK/extra.txt" | tr '\n' ' ')"
fi

install() { # $1 folder: installs the tarball (offline first: npm ci filled the cache)
  (cd "$1" && npm install --no-audit --no-fund --prefer-offline "$TGZ" >/dev/null)
  [ ! -e "$1/node_modules/tsx" ] || fail "$1: tsx was installed (it must be a devDependency only)"
  [ ! -e "$1/node_modules/typescript" ] || fail "$1: the typescript package was installed"
}
no_cycle() { # $1 stderr file
  if grep -q "in a cycle\|ERR_REQUIRE_CYCLE_MODULE" "$1"; then cat "$1" >&2; fail "a \"require() … in a cycle\" error"; fi
}
VERSION=$(node -p 'require("./package.json").version')
cp test/fixtures/his/examples/deploy-paris-genoa.state.json "$WORK/state.json"
cp test/fixtures/his/examples/deploy-5-units.action.json "$WORK/action.json"

# --- a fresh CommonJS project ------------------------------------------------------------------
CJS=$WORK/cjs
mkdir -p "$CJS" && echo '{ "name": "cjs-consumer", "version": "1.0.0", "private": true }' > "$CJS/package.json"
install "$CJS"
(
  cd "$CJS"
  BIN=node_modules/.bin/rulewright
  [ "$($BIN --version)" = "$VERSION" ] || fail "cjs: rulewright --version"
  # an edition shipped with the package, from a folder with no dsl/
  $BIN check --edition his --state ../state.json --action ../action.json 2>check.err >check.out || { cat check.out check.err; fail "cjs: check of a shipped edition"; }
  no_cycle check.err
  # a new edition in the CommonJS project: the generated TypeScript validators load there too
  $BIN init dsl/my-game >/dev/null
  $BIN build my-game >/dev/null
  $BIN check --edition my-game --state <(echo '{"active_player":"red","round":1}') --action <(echo '{"action":"pass","player":"blue"}') 2>check2.err >check2.out && fail "cjs: check should forbid the pass"
  grep -q "turn.active_only" check2.out || { cat check2.out check2.err; fail "cjs: check of the new edition did not name its rule"; }
  no_cycle check2.err
  $BIN test dsl/my-game/scenarios >test.out 2>test.err || { cat test.out test.err; fail "cjs: scenarios of the new edition"; }
  no_cycle test.err
  $BIN build his --out vendor/his >/dev/null
  [ -f vendor/his/validators.ts ] || fail "cjs: build --out wrote no validators.ts"
  # the library, required from CommonJS
  cat > lib.cjs <<'EOF'
const assert = require("node:assert/strict");
const { loadEdition, generateEdition } = require("rulewright");
const his = require("rulewright/editions/his");
const { proveEdition } = require("rulewright/verify");
const { createInterpreter } = require("rulewright/interpret");
(async () => {
  const { edition, diagnostics } = loadEdition("dsl/my-game");
  assert.ok(edition, JSON.stringify(diagnostics));
  const files = await generateEdition(edition);
  assert.ok(files.some((f) => f.path.endsWith("validators.ts")));
  const state = require("../state.json");
  assert.equal(his.check(state, require("../action.json")).allowed, true);
  assert.equal(typeof proveEdition, "function");
  const verdict = createInterpreter(edition).check({ active_player: "red", round: 1 }, { action: "pass", player: "blue" });
  assert.deepEqual(verdict.violations.map((v) => v.rule), ["turn.active_only"]);
  console.log("cjs library ok");
})().catch((e) => { console.error(e); process.exit(1); });
EOF
  node lib.cjs 2>lib.err || { cat lib.err; fail "cjs: the library"; }
  no_cycle lib.err
  # the compiled prover (its solver processes run dist/verify/run/worker.js)
  $BIN prove my-game -q --timeout 60000 >prove.out 2>prove.err || { cat prove.out prove.err; fail "cjs: prove of the new edition"; }
) || exit 1
echo "pack-check: CommonJS project ok ($((SECONDS - t0)) s)"

# --- a fresh ESM project -----------------------------------------------------------------------
ESM=$WORK/esm
mkdir -p "$ESM" && echo '{ "name": "esm-consumer", "version": "1.0.0", "private": true, "type": "module" }' > "$ESM/package.json"
install "$ESM"
(
  cd "$ESM"
  BIN=node_modules/.bin/rulewright
  [ "$($BIN --version)" = "$VERSION" ] || fail "esm: rulewright --version"
  $BIN check --edition his --state ../state.json --action ../action.json >/dev/null || fail "esm: check of a shipped edition"
  $BIN init my-game >/dev/null
  $BIN build my-game --out generated/my-game >/dev/null
  $BIN test my-game/scenarios >test.out 2>&1 || { cat test.out; fail "esm: scenarios of the new edition"; }
  cat > lib.mjs <<'EOF'
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { loadEdition, generateEdition } from "rulewright";
import { checkSpringDeploy, RULES } from "rulewright/editions/his";
import { proveEdition } from "rulewright/verify";
const { edition } = loadEdition("my-game");
assert.ok(edition);
assert.ok((await generateEdition(edition)).length >= 5);
const state = JSON.parse(readFileSync("../state.json", "utf8"));
assert.equal(checkSpringDeploy(state, JSON.parse(readFileSync("../action.json", "utf8"))).allowed, true);
assert.ok(RULES.length > 50);
assert.equal(typeof proveEdition, "function");
console.log("esm library ok");
EOF
  node lib.mjs >/dev/null || fail "esm: the library"
) || exit 1
echo "pack-check: ESM project ok ($((SECONDS - t0)) s)"

# --- the example engine ------------------------------------------------------------------------
cp -r examples/engine "$WORK/engine"
rm -rf "$WORK/engine/node_modules"
install "$WORK/engine"
(cd "$WORK/engine" && npm test >test.out 2>&1) || { cat "$WORK/engine/test.out"; fail "examples/engine: npm test"; }
grep -E '^# (pass|fail)' "$WORK/engine/test.out" | tr '\n' ' '
echo
echo "pack-check: all ok in $((SECONDS - t0)) s"
