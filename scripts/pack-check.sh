#!/usr/bin/env bash
# npm run pack:check (a .ci/run step): packs the package as npm would publish it (`npm pack`,
# which builds dist/ first: the `prepack` script), installs the tarball into a fresh CommonJS
# project and a fresh ESM project, runs the CLI and the library from each, and runs the example
# engine (examples/engine) on the installed package. Nothing may need tsx or TypeScript at run
# time: neither is installed in those projects, and the CLI must run compiled code.
# Then the runtime package of an edition (@rulewright/his, packages/dist/his/, issue 26): its install
# size and dependency count in a fresh project (budget 1 MiB, no dependency), TypeScript against its
# packed declarations and the toolchain's (module nodenext, from an ES module and a CommonJS file;
# moduleResolution bundler), a CommonJS require, `build --out` output compiled strictly, the
# shipped corpus run through the installed CLI (`conformance run his`, also --verdict-only) and
# through `@rulewright/his/corpus`, `explain pass.home_card` without proving, and an esbuild browser
# bundles of `checkTrusted` and of the checked `check` alone (budgets below).
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
[ -f packages/dist/his/package.json ] || fail "no packages/dist/his: scripts/build-validators.mjs did not run"
(cd packages/dist/his && npm pack --loglevel warn --pack-destination "$WORK" >/dev/null)
VTGZ=$(ls "$WORK"/rulewright-his-*.tgz)
TSC="$REPO/node_modules/typescript/bin/tsc"
ESBUILD="$REPO/node_modules/.bin/esbuild"
# budgets: the validators package installed (bytes of its files), and bundled for the browser
# (minified) the trusted check alone (the engine's hot loop: no input validation) and the checked
# check (input validated against the action's parameters and the state schema: the schema
# validators of the whole state come with it)
INSTALL_BUDGET=1048576
BUNDLE_BUDGET=${BUNDLE_BUDGET:-102400}
CHECKED_BUNDLE_BUDGET=${CHECKED_BUNDLE_BUDGET:-262144}
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

# --- the validators package alone: size, dependencies, CommonJS, TypeScript, browser bundle ---------
VAL=$WORK/validators
mkdir -p "$VAL" && echo '{ "name": "validators-consumer", "version": "1.0.0", "private": true }' > "$VAL/package.json"
(cd "$VAL" && npm install --no-audit --no-fund --prefer-offline "$VTGZ" >/dev/null)
(
  cd "$VAL"
  pkgs=$(find node_modules -name package.json -not -path "*/corpus/*" | wc -l)
  bytes=$(find node_modules/@rulewright/his -type f -printf '%s\n' | awk '{ s += $1 } END { print s }')
  echo "pack-check: @rulewright/his installs $bytes bytes ($((bytes / 1024)) KiB) in $(find node_modules -type f | wc -l) files; node_modules holds $pkgs package(s), so $((pkgs - 1)) dependencies"
  [ "$pkgs" -eq 1 ] && [ "$(ls node_modules | grep -v '^\.')" = "@rulewright" ] && [ "$(ls node_modules/@rulewright)" = "his" ] || fail "validators: installing @rulewright/his brought other packages: $(ls node_modules)"
  [ "$bytes" -le "$INSTALL_BUDGET" ] || fail "validators: @rulewright/his installs $bytes bytes, over the budget of $INSTALL_BUDGET"
  node -e 'const p = require("@rulewright/his/package.json"); if (p.sideEffects !== false || p.dependencies) { console.error("sideEffects must be false and there must be no dependencies"); process.exit(1); }' || fail "validators: package.json"
  # CommonJS: require (Node >= 20.19) gives the same API
  cat > use.cjs <<'EOF2'
const assert = require("node:assert/strict");
const his = require("@rulewright/his");
assert.equal(his.check(his.START_STATE, { action: "pass", power: "ottoman" }).allowed, false);
assert.ok(his.ENUMS.MajorPower.includes("ottoman") && Object.isFrozen(his.ENUMS.Phase));
assert.match(his.EDITION_HASH, /^[0-9a-f]{64}$/);
assert.equal(require("@rulewright/his/corpus/manifest.json").version, his.EDITION_HASH);
console.log("cjs require ok");
EOF2
  node use.cjs >/dev/null || fail "validators: require from CommonJS"
  # the shipped corpus through the package's own runner: the package's check agrees with every case
  cat > corpus.mjs <<'EOF2'
import { check } from "@rulewright/his";
import { runCorpus, loadCorpus } from "@rulewright/his/corpus";
const r = await runCorpus(check);
const v = await runCorpus((s, a) => ({ allowed: check(s, a).allowed }), { verdictOnly: true });
const { manifest } = loadCorpus();
if (r.agreed !== r.total || v.agreed !== v.total || r.total !== manifest.cases) { console.error(JSON.stringify(r.disagreements.slice(0, 3))); process.exit(1); }
console.log(`corpus ${r.agreed}/${r.total}, kill rate ${manifest.mutation?.killRate}`);
EOF2
  node corpus.mjs || fail "validators: the shipped corpus through @rulewright/his/corpus"
  # TypeScript against the packed declarations: nodenext (ES module and CommonJS files) and bundler
  mkdir -p nodenext bundler
  cat > nodenext/use.mts <<'EOF2'
import { check, checkPass, legalMoves, ENUMS, START_STATE, EDITION_HASH, RULES, type State, type PassAction, type MajorPower } from "@rulewright/his";
import { loadCorpus, type CorpusCase } from "@rulewright/his/corpus";
const power: MajorPower = ENUMS.MajorPower[0];
const state: State = JSON.parse(JSON.stringify(START_STATE)) as State;
const a: PassAction = { action: "pass", power };
const r = check(state, a);
const allowed: boolean = checkPass(state, a).allowed && r.ok && r.allowed;
const moves = legalMoves(state, power);
const hash: string = EDITION_HASH;
const first: CorpusCase | undefined = loadCorpus().cases[0];
export const out = [allowed, hash, first?.source, Array.isArray(moves) ? moves.length : moves.errors.length, RULES.length];
EOF2
  cat > nodenext/use.cts <<'EOF2'
import his = require("@rulewright/his");
const r = his.check(his.START_STATE as his.State, { action: "pass", power: "france" });
export const allowed: boolean = r.ok && r.allowed;
EOF2
  echo '{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022", "lib": ["es2022"], "types": [], "strict": true, "noEmit": true, "skipLibCheck": false, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true }, "files": ["use.mts", "use.cts"] }' > nodenext/tsconfig.json
  cat > bundler/use.ts <<'EOF2'
import { check, ENUMS, START_STATE, type State } from "@rulewright/his";
const r = check(START_STATE as State, { action: "declare_war", by: ENUMS.MajorPower[1], target: "scotland" });
export const v: boolean = r.ok ? r.allowed : false;
EOF2
  echo '{ "compilerOptions": { "module": "esnext", "moduleResolution": "bundler", "target": "es2022", "lib": ["es2022", "dom"], "types": [], "strict": true, "noEmit": true, "skipLibCheck": false, "verbatimModuleSyntax": true }, "files": ["use.ts"] }' > bundler/tsconfig.json
  cp -r node_modules nodenext/ && cp -r node_modules bundler/
  (cd nodenext && node "$TSC" -p . > tsc.out 2>&1) || { cat nodenext/tsc.out; fail "validators: tsc (nodenext) against the packed .d.ts"; }
  (cd bundler && node "$TSC" -p . > tsc.out 2>&1) || { cat bundler/tsc.out; fail "validators: tsc (bundler) against the packed .d.ts"; }
  # the minimum TypeScript the README states for nodenext (a CommonJS file's import = require of an ES module): 5.8
  mkdir -p ts-min && (cd ts-min && echo '{ "private": true }' > package.json && npm install --no-audit --no-fund --prefer-offline typescript@5.8.3 >/dev/null 2>&1) || fail "validators: could not install typescript@5.8.3"
  (cd nodenext && node ../ts-min/node_modules/typescript/bin/tsc -p . > tsc58.out 2>&1) || { cat nodenext/tsc58.out; fail "validators: TypeScript 5.8 (nodenext) against the packed .d.ts"; }
  # check alone, bundled for the browser (no Node built-ins; tree-shaken by "sideEffects": false):
  # checkTrusted (no input validation) and the checked check, each against its budget
  bundle() {
    local name=$1 budget=$2
    echo "import { $name } from \"@rulewright/his\"; globalThis.rulewrightCheck = $name;" > "entry-$name.mjs"
    "$ESBUILD" "entry-$name.mjs" --bundle --minify --platform=browser --format=esm --log-level=warning --outfile="$name.js" || fail "validators: esbuild browser bundle of $name"
    local size
    size=$(wc -c < "$name.js")
    echo "pack-check: $name alone bundles for the browser to $size bytes ($((size / 1024)) KiB minified, $(gzip -c "$name.js" | wc -c) gzip'd; budget $budget)"
    [ "$size" -le "$budget" ] || fail "validators: $name alone bundles to $size bytes, over the budget of $budget"
  }
  bundle checkTrusted "$BUNDLE_BUDGET"
  bundle check "$CHECKED_BUNDLE_BUDGET"
) || exit 1
echo "pack-check: validators package ok ($((SECONDS - t0)) s)"

# --- the toolchain in the ESM project: corpus, explain, build --out compiled, its declarations ----
(
  cd "$ESM"
  BIN=node_modules/.bin/rulewright
  cp "$VTGZ" . && npm install --no-audit --no-fund --prefer-offline "./$(basename "$VTGZ")" >/dev/null
  echo 'export { check } from "@rulewright/his";' > engine.mjs
  $BIN conformance run his --module engine.mjs > conf.out 2>&1 || { cat conf.out; fail "esm: rulewright conformance run his (the shipped corpus)"; }
  tail -1 conf.out
  echo 'import { check as c } from "@rulewright/his"; export const check = (s, a) => ({ allowed: c(s, a).allowed });' > verdicts.mjs
  $BIN conformance run his --module verdicts.mjs --verdict-only > conf2.out 2>&1 || { cat conf2.out; fail "esm: conformance run his --verdict-only"; }
  $BIN explain pass.home_card --edition his > explain.out 2>&1 || { cat explain.out; fail "esm: rulewright explain pass.home_card --edition his"; }
  $BIN explain deploy.other_units > explain2.out 2>&1 || { cat explain2.out; fail "esm: rulewright explain deploy.other_units (found among the shipped editions)"; }
  grep -q "committed verdicts" explain2.out || { cat explain2.out; fail "esm: explain deploy.other_units proved"; }
  grep -q "committed verdicts" explain.out || { cat explain.out; fail "esm: explain proved instead of reading the committed verdicts"; }
  grep -q "his.dead_rule.pass.home_card" explain.out || { cat explain.out; fail "esm: explain shows no verdict"; }
  # build --out output compiles under strict settings
  $BIN build his --out src/his >/dev/null
  echo '{ "compilerOptions": { "module": "nodenext", "target": "es2022", "lib": ["es2022"], "types": [], "strict": true, "noEmit": true, "noUnusedLocals": true, "exactOptionalPropertyTypes": true, "noUncheckedIndexedAccess": true, "verbatimModuleSyntax": true }, "include": ["src/his/*.ts"] }' > tsconfig.out.json
  node "$TSC" -p tsconfig.out.json > tsc-out.txt 2>&1 || { head -20 tsc-out.txt; fail "esm: build --out output does not compile"; }
  # the toolchain's own declarations (rulewright, rulewright/editions/his) under nodenext
  cat > lib-types.mts <<'EOF2'
import { loadEdition, generateEdition } from "rulewright";
import { check, type State } from "rulewright/editions/his";
const { edition } = loadEdition("my-game");
export const files = edition ? generateEdition(edition) : undefined;
export const f = (s: State) => {
  const r = check(s, { action: "pass", power: "france" });
  return r.ok && r.allowed;
};
EOF2
  echo '{ "compilerOptions": { "module": "nodenext", "target": "es2022", "lib": ["es2022"], "strict": true, "noEmit": true, "skipLibCheck": true }, "files": ["lib-types.mts"] }' > tsconfig.lib.json
  node "$TSC" -p tsconfig.lib.json > tsc-lib.txt 2>&1 || { head -20 tsc-lib.txt; fail "esm: tsc against the toolchain's packed .d.ts"; }
) || exit 1
echo "pack-check: toolchain corpus, explain, build --out compiled, declarations ok ($((SECONDS - t0)) s)"

# --- the example engine ------------------------------------------------------------------------
cp -r examples/engine "$WORK/engine"
rm -rf "$WORK/engine/node_modules"
install "$WORK/engine"
(cd "$WORK/engine" && npm test >test.out 2>&1) || { cat "$WORK/engine/test.out"; fail "examples/engine: npm test"; }
grep -E '^# (pass|fail)' "$WORK/engine/test.out" | tr '\n' ' '
echo
echo "pack-check: all ok in $((SECONDS - t0)) s"
