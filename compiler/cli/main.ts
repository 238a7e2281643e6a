/**
 * The rulewright command line. Every subcommand returns its exit code; nothing here prints a
 * stack trace for bad input (UsageError → one message + hint, exit 2). See README "CLI".
 */
import { Command, CommanderError, Option } from "commander";
import { createRequire } from "node:module";
import pc from "picocolors";
import type { Format } from "./common.js";
import { guardTerminalOutput } from "../diagnostics/terminal.js";

// Subcommands are imported when run: `check` should not pay for loading ts-morph or Z3.
const buildCommand = async (...a: Parameters<typeof import("./build.js").buildCommand>) => (await import("./build.js")).buildCommand(...a);
const proveCommand = async (...a: Parameters<typeof import("./prove.js").proveCommand>) => (await import("./prove.js")).proveCommand(...a);
const testCommand = async (...a: Parameters<typeof import("./test.js").testCommand>) => (await import("./test.js")).testCommand(...a);
const checkCommand = async (...a: Parameters<typeof import("./check.js").checkCommand>) => (await import("./check.js")).checkCommand(...a);
const explainCommand = async (...a: Parameters<typeof import("./explain.js").explainCommand>) => (await import("./explain.js")).explainCommand(...a);
const explainCodeCommand = async (...a: Parameters<typeof import("./explain-code.js").explainCodeCommand>) => (await import("./explain-code.js")).explainCodeCommand(...a);
const diffCommand = async (...a: Parameters<typeof import("./diff.js").diffCommand>) => (await import("./diff.js")).diffCommand(...a);
const coverageCommand = async (...a: Parameters<typeof import("./coverage.js").coverageCommand>) => (await import("./coverage.js")).coverageCommand(...a);
const lspCommand = async (...a: Parameters<typeof import("./lsp.js").lspCommand>) => (await import("./lsp.js")).lspCommand(...a);
const fmtCommand = async (...a: Parameters<typeof import("./fmt.js").fmtCommand>) => (await import("./fmt.js")).fmtCommand(...a);
const reportCommand = async (...a: Parameters<typeof import("./report.js").reportCommand>) => (await import("./report.js")).reportCommand(...a);
const serveCommand = async (...a: Parameters<typeof import("./report.js").serveCommand>) => (await import("./report.js")).serveCommand(...a);
const initCommand = async (...a: Parameters<typeof import("./init.js").initCommand>) => (await import("./init.js")).initCommand(...a);
const conformanceWriteCommand = async (...a: Parameters<typeof import("./conformance.js").conformanceWriteCommand>) => (await import("./conformance.js")).conformanceWriteCommand(...a);
const conformanceRunCommand = async (...a: Parameters<typeof import("./conformance.js").conformanceRunCommand>) => (await import("./conformance.js")).conformanceRunCommand(...a);
const allCommand = async (...a: Parameters<typeof import("./all.js").allCommand>) => (await import("./all.js")).allCommand(...a);

const VERSION = (createRequire(import.meta.url)("../../package.json") as { version: string }).version;

const formatOption = () => new Option("--format <format>", "output format").choices(["text", "json"]).default("text");

function jsonWanted(argv: string[]): boolean {
  const i = argv.indexOf("--format");
  return (i >= 0 && argv[i + 1] === "json") || argv.includes("--format=json");
}

/** Sets the exit code of the command that ran. */
type SetCode = (code: number) => void;

/** The commands that compile, prove and run an edition: build, init, prove, explain, test, check, diff. */
function editionCommands(program: Command, set: SetCode): void {
  program
    .command("build")
    .description("compile editions and write generated/<edition>/ (all bundled editions by default)")
    .argument("[editions...]", "bundled edition names")
    .option("--check", "write nothing; exit 1 when generated/ (or --out) is stale")
    .option("--out <dir>", "write the validators of the one edition named into this folder instead of generated/<edition>/")
    .option("-w, --watch", "build again on every save of an edition's rule, schema or board file; print the generated files that changed (Ctrl-C to stop)")
    .addOption(formatOption())
    .action(async (editions: string[], o: { check?: boolean; out?: string; watch?: boolean; format: Format }) => {
      set(await buildCommand(editions, o));
    });
  program
    .command("init")
    .description("scaffold a new edition folder (edition.rules, a state schema, one rule, one scenario, a README) that builds, proves and tests as it is; with --extends, a variant of an edition, anywhere")
    .argument("[dir]", "the folder to create (default dsl/my-edition)")
    .option("--extends <parent>", "scaffold a variant of <parent> (a bundled edition's name, an edition folder's path, or <package>/<edition>): edition.rules with commented examples, a schema extension, a fixture satisfying its invariants, a scenario file, the parent's coverage manifests")
    .option("--fixture", "derive the fixture of the variant in <dir> again (after its invariants or fields changed), or name the facts no derivation satisfies (exit 1)")
    .addOption(formatOption())
    .action(async (dir: string | undefined, o: { format: Format; extends?: string; fixture?: boolean }) => {
      if (o.fixture || o.extends !== undefined) {
        const [{ initVariant, refreshFixture }, { UsageError }] = await Promise.all([import("./init-variant.js"), import("./common.js")]);
        if (dir === undefined) throw new UsageError(`init ${o.fixture ? "--fixture" : "--extends"} needs the variant's folder`, 2, "e.g. `rulewright init --extends his ../my-variant`");
        set(o.fixture ? await refreshFixture(dir, o) : await initVariant(dir, o.extends!, o));
        return;
      }
      set(await initCommand(dir, o));
    });
  program
    .command("prove")
    .description("prove rule consistency with Z3; writes proofs/<edition>/ (exit 0 ok, 1 refuted, 3 unknown, 2 bad input; see README)")
    .argument("[editions...]", "bundled edition names or edition folders")
    .option("--rlimit <units>", "resource budget of one obligation in units of Z3's deterministic resource count, e.g. 120M (default 60M): running out is unknown, the same at any load")
    .option("--timeout <ms>", "safety net of one obligation in milliseconds of solver CPU time, from its start in a solver process (default 600000; CPU time, so load does not bring it nearer); the process is killed 30 s later")
    .option("--deadline <duration>", "whole-run deadline, e.g. 90s, 5m, 120000 (ms): what is not solved by then is unknown")
    .addOption(new Option("--fail-on <severity>", "lowest severity of a refuted or unknown obligation that fails the run").choices(["error", "warning", "info"]).default("error"))
    .option("--out <dir>", "where to write the report, .smt2 files and counterexamples")
    .option("--no-cache", "solve every obligation (ignore and do not update the proof cache)")
    .option("--cache-dir <dir>", "proof cache folder (default proofs/.cache)")
    .option("--ci", "trust nothing from the checkout: no proof cache in it (none unless --cache-dir is outside it), a committed proofs/.cache fails the run, verdicts compared with proofs/verdicts.tsv")
    .option("--expect-verdicts <file>", "fail (exit 1) when a verdict differs from this verdict table (proofs/verdicts.tsv)")
    .option("--no-isolate", "run Z3 in this process instead of solver child processes (debugging)")
    .option("--workers <n>", "solver processes (default one per core, at most 4)")
    .option("--shard <i/n>", "prove only the i-th of n shards of the obligations (CI splits the work; merge the JSON reports)")
    .option("--witnesses <dirs>", "comma-separated scenario folders whose states are tried as witnesses first (default test/scenarios)")
    .option("--no-witnesses", "do not try concrete witnesses: the solver searches for every witness")
    .option("--no-slice", "assume every invariant in every obligation (no cone-of-influence slicing)")
    .option("--smt2", "write an SMT-LIB benchmark for every obligation (default: only for those not proved, and tables)")
    .option("-v, --verbose", "list every proof with its unsat core or witness")
    .option("-q, --quiet", "no progress on stderr")
    .option("-w, --watch", "prove again on every save of an edition's rule, schema or board file, through the proof cache; print how many obligations were solved again and only the verdicts that changed (Ctrl-C to stop)")
    .addOption(new Option("--format <format>", "output format").choices(["text", "json", "sarif", "junit"]).default("text"))
    .action(async (editions: string[], o: Parameters<typeof import("./prove.js").proveCommand>[1]) => {
      set(await proveCommand(editions, o));
    });
  program
    .command("explain")
    .description("show a rule (or exemption, invariant): citation, source, related rules, and the verdicts of its proof obligations; or a diagnostic code (RWxxxx): what it means, a wrong and a right example, the fix")
    .argument("<id>", "a rule, exemption or invariant id, e.g. pass.home_card, or a diagnostic code, e.g. RW2001")
    .option("--edition <edition>", "bundled edition name or edition folder (default: the bundled edition that has the id)")
    .option("--no-prove", "only use the last prove report or the committed verdicts (proofs/verdicts.tsv); do not prove on demand")
    .option("--rlimit <units>", "resource budget of one obligation when proving on demand (default 60M)")
    .option("--timeout <ms>", "safety net of one obligation when proving on demand (ms of solver CPU time)")
    .addOption(formatOption())
    .action(async (id: string, o: { edition?: string; prove?: boolean; timeout?: string; rlimit?: string; format: Format }) => {
      set(/^rw\d+$/i.test(id) ? await explainCodeCommand(id, o) : await explainCommand(id, o));
    });
  program
    .command("test")
    .description("run scenario files against the generated validators (default: test/scenarios)")
    .argument("[paths...]", "scenario files or folders")
    .option("-v, --verbose", "list passing scenarios too")
    .option("-w, --watch", "run again on every save of a scenario or rule file; show only what changed (Ctrl-C to stop)")
    .addOption(formatOption())
    .action(async (paths: string[], o: { verbose?: boolean; watch?: boolean; format: Format }) => {
      set(await testCommand(paths, o));
    });
  program
    .command("check")
    .description("the verdict of one action in one state (exit 0 allowed, 1 forbidden, 2 bad input)")
    .option("--edition <edition>", "bundled edition name or edition folder")
    .option("--state <file>", "state JSON file")
    .option("--action <file>", "action JSON file, e.g. {\"action\": \"pass\", \"power\": \"france\"}")
    .option("-w, --watch", "check again on every save of the state, action or rule files; show only what changed (Ctrl-C to stop)")
    .addOption(formatOption())
    .action(async (o: { edition?: string; state?: string; action?: string; watch?: boolean; format: Format }) => {
      set(await checkCommand(o));
    });
  program
    .command("diff")
    .description("compare the verdicts of two editions on every shared action with Z3; writes the differing states to proofs/diff/<A>__<B>/")
    .argument("<a>", "bundled edition name or edition folder")
    .argument("<b>", "bundled edition name or edition folder")
    .option("--rlimit <units>", "resource budget of one state search in units of Z3's deterministic resource count, e.g. 640M (default 320M): running out is unknown, the same at any load")
    .option("--timeout <ms>", "safety net of one state search in milliseconds of CPU time (default 600000)")
    .option("--max-states <n>", "states looked for per action, aspect and direction (default 3)")
    .option("--out <dir>", "where to write the states and report.json")
    .option("--fail-on-diff", "exit 1 when an action differs or is unknown (for CI)")
    .addOption(formatOption())
    .action(async (a: string, b: string, o: { rlimit?: string; timeout?: string; maxStates?: string; out?: string; failOnDiff?: boolean; format: Format }) => {
      set(await diffCommand([a, b], o));
    });
}

/** The other commands: coverage, fmt, lsp, conformance, report, serve, all. */
function toolCommands(program: Command, set: SetCode): void {
  program
    .command("coverage")
    .description("share of the rulebook sources' restriction paragraphs encoded by rules, and of the paragraphs audited (exit 1 under --min-percent or --min-audited, 2 on a malformed manifest)")
    .option("--edition <edition>", "report one edition only")
    .option("--min-percent <n>", "fail (exit 1) when the encoded share is under n percent")
    .option("--min-audited <n>", "fail (exit 1) when the audited share (of all paragraphs but headings) is under n percent")
    .option("--manifests <dir>", "coverage manifests folder (default dsl/coverage)")
    .option("--sources <dir>", "rulebook sources folder (default ../shared/rulebooks)")
    .option("--verify-audit", "check that each audit mark's scenarios pin its rules: remove each rule in memory, one must fail (exit 1, RW5014, if none does)")
    .addOption(formatOption())
    .action(async (o: { edition?: string; minPercent?: string; minAudited?: string; manifests?: string; sources?: string; verifyAudit?: boolean; format: Format }) => {
      set(await coverageCommand(o));
    });
  program
    .command("fmt")
    .description("rewrite rule files in the canonical layout (exit 0 ok, 1 with --check when a file is not formatted, 2 syntax error / bad path)")
    .argument("[paths...]", "rule files or folders (default: dsl)")
    .option("--check", "write nothing; exit 1 when a file is not formatted")
    .addOption(formatOption())
    .action(async (paths: string[], o: { check?: boolean; format: Format }) => {
      set(await fmtCommand(paths, o));
    });
  program
    .command("lsp")
    .description("run the language server over stdio (for editors: diagnostics, hover with proof verdicts, definitions, completion, rename, formatting)")
    .option("--stdio", "use stdio (the default and only transport)")
    .action(async (o: { stdio?: boolean }) => {
      set(await lspCommand(o));
    });
  const conformance = program.command("conformance").description("the conformance corpus of an edition (conformance/<edition>/) and an external engine run against it");
  conformance
    .command("write")
    .description("write conformance/<edition>/ from the scenarios, the last prove's witnesses and counterexamples and the cases that kill the rules' mutants (exit 1 with --check when a corpus was made from other rules or other scenarios)")
    .argument("[editions...]", "bundled edition names (default: all)")
    .option("--check", "write nothing; exit 1 when a committed corpus is stale")
    .option("--proofs <dir>", "where the prove reports are (default proofs)")
    .option("--prove-mutants", "decide with Z3 the mutants the bounded search leaves and that have no fresh answer in proofs/mutants/<edition>.json, and write it")
    .option("--rlimit <units>", "with --prove-mutants: the resource budget of one action's search for a mutant, in units of Z3's deterministic resource count (default 60M): running out is unknown; given, it also solves again the committed unknowns whose smaller budget ran out")
    .option("--mutants <pattern>", "with --prove-mutants: solve again the mutants neither killed nor proved equivalent whose id matches the pattern (`*` stands for any text, e.g. 'control.units#*'), whatever their committed answer, and only those")
    .addOption(formatOption())
    .action(async (editions: string[], o: { check?: boolean; proofs?: string; proveMutants?: boolean; rlimit?: string; mutants?: string; format: Format }) => {
      set(await conformanceWriteCommand(editions, o));
    });
  conformance
    .command("run")
    .description("run an engine against an edition's corpus and list every disagreement (exit 0 all agree, 1 a disagreement, 2 bad input)")
    .argument("<edition>", "bundled edition name")
    .option("--module <file>", "an ES module exporting check(state, action)")
    .option("--command <cmd>", "a command reading one JSON line per case and answering one JSON line per case")
    .option("--corpus <dir>", "the corpus folder (default conformance/<edition>, else the one shipped in the package)")
    .option("--verdict-only", "compare allowed/forbidden only (rule ids optional)")
    .addOption(formatOption())
    .action(async (edition: string, o: { module?: string; command?: string; corpus?: string; verdictOnly?: boolean; format: Format }) => {
      set(await conformanceRunCommand(edition, o));
    });
  program
    .command("report")
    .description("write the rulebook report: an offline web page of every edition, its rules in plain English and its proofs' states on the board (reads the last prove reports; never proves)")
    .argument("[editions...]", "bundled edition names or edition folders (default: every bundled edition)")
    .option("--out <dir>", "where to write index.html (default proofs/report)")
    .option("--tests <file>", "scenario results saved from `rulewright test --format json` (default: run the scenarios)")
    .option("--coverage <file>", "coverage saved from `rulewright coverage --format json` (default: compute it)")
    .action(async (editions: string[], o: { out?: string; tests?: string; coverage?: string }) => {
      set(await reportCommand(editions, o));
    });
  program
    .command("serve")
    .description("write the rulebook report and serve it on 127.0.0.1; with --watch rebuild it when a rule file, scenario or prove report changes")
    .argument("[editions...]", "bundled edition names or edition folders (default: every bundled edition)")
    .option("--out <dir>", "where to write index.html (default proofs/report)")
    .option("--port <n>", "port (default 8377; 0 picks a free one)")
    .option("--watch", "rebuild on save")
    .action(async (editions: string[], o: { out?: string; port?: string; watch?: boolean }) => {
      set(await serveCommand(editions, o));
    });
  program
    .command("all")
    .description("build, prove and test every bundled edition and print a summary (npm start)")
    .addOption(formatOption())
    .action(async (o: { format: Format }) => {
      set(await allCommand(o));
    });

}

/** Runs the CLI with the given arguments (without `node script`); resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code = 0;
  const program = new Command("rulewright")
    .description("compile board-game rule files into typed TypeScript validators and prove them consistent with Z3")
    .version(VERSION, "-V, --version", "print the rulewright version")
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s) })
    .showHelpAfterError("(run `rulewright --help` for usage)");

  const set: SetCode = (c) => {
    code = c;
  };
  editionCommands(program, set);
  toolCommands(program, set);

  // every byte printed passes terminalSafeOutput (no control sequence from a rule title, a scenario
  // name or a source line reaches the terminal); the language server's stdout is the protocol
  const restoreOutput = argv.find((a) => !a.startsWith("-")) === "lsp" ? () => {} : guardTerminalOutput();
  // a reader that stops early (`rulewright prove | head -1`) closes the pipe: the rest of the
  // output is dropped quietly and the command ends with its own exit code (no EPIPE stack trace)
  if (argv.find((a) => !a.startsWith("-")) !== "lsp") dropOutputOnClosedPipe(process.stdout);
  try {
    await program.parseAsync(argv, { from: "user" });
  } catch (e) {
    if (e instanceof CommanderError) {
      return e.exitCode === 0 ? 0 : 2;
    }
    const { UsageError } = await import("./common.js");
    if (e instanceof UsageError) {
      if (jsonWanted(argv)) process.stdout.write(JSON.stringify({ error: e.message, help: e.help, exitCode: e.exitCode }, null, 2) + "\n");
      process.stderr.write(`${pc.red("error")}: ${e.message}\n`);
      if (e.help) process.stderr.write(`  ${pc.cyan("help")}: ${e.help}\n`);
      return e.exitCode;
    }
    process.stderr.write(`${pc.red("internal error")}: ${(e as Error).message}\n`);
    if (process.env.RULEWRIGHT_DEBUG) process.stderr.write(String((e as Error).stack) + "\n");
    process.stderr.write("  this is a rulewright bug; rerun with RULEWRIGHT_DEBUG=1 for the stack trace\n");
    return 70;
  } finally {
    restoreOutput();
  }
  return code;
}

/**
 * After the reader of `stream` has gone (EPIPE: `| head`), every later write is dropped (its
 * callback still called, so a wait for the stream to drain ends); any other stream error is
 * rethrown. Registered once per stream.
 */
function dropOutputOnClosedPipe(stream: NodeJS.WriteStream): void {
  const guarded = stream as { rwPipeGuard?: boolean };
  if (guarded.rwPipeGuard) return;
  guarded.rwPipeGuard = true;
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE") throw e;
    stream.write = ((_chunk: unknown, enc?: unknown, cb?: unknown) => {
      const done = typeof enc === "function" ? enc : cb;
      if (typeof done === "function") (done as () => void)();
      return true;
    }) as typeof stream.write;
  });
}
