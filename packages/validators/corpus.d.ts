/** One case of the conformance corpus (conformance/README.md in the rulewright package). */
export interface CorpusCase {
  readonly id: string;
  readonly name: string;
  /** the rule the case is about: `dsl/…/x.rules:line`, as RULES[].file and line */
  readonly source: string;
  /** what the case was made from: `scenario …`, `proof …` or `mutant …` */
  readonly origin: string;
  readonly citation?: string;
  readonly base: string;
  readonly patch: unknown;
  readonly action: { readonly action: string; readonly [param: string]: unknown };
  readonly expect: { readonly allowed: boolean; readonly violations: readonly string[]; readonly obliged: readonly string[] };
  /** the title of every rule the case names */
  readonly rules: Readonly<Record<string, string>>;
  /** base deep-merged with patch */
  readonly state: unknown;
}
export interface CorpusManifest {
  readonly edition: string;
  readonly title: string;
  /** EDITION_HASH of the rules the expectations come from */
  readonly version: string;
  readonly format: number;
  readonly cases: number;
  readonly bases: readonly string[];
  readonly mutation?: { readonly mutants: number; readonly killed: number; readonly equivalent: number; readonly killRate: number; readonly killedByBase: number; readonly added: number };
}
export interface CorpusRun {
  readonly edition: string;
  readonly version: string;
  readonly total: number;
  readonly agreed: number;
  readonly disagreements: readonly { readonly id: string; readonly name: string; readonly source: string; readonly problems: readonly string[] }[];
}
/** Objects merge key by key; arrays, scalars and null replace. */
export declare function deepMerge(base: unknown, patch: unknown): unknown;
/** The manifest and every case with its state (reads ./corpus/; Node only). */
export declare function loadCorpus(): { manifest: CorpusManifest; cases: CorpusCase[] };
/** Runs an engine's check on every case (a copy of its state); verdictOnly compares allowed/forbidden only. */
export declare function runCorpus(
  check: (state: unknown, action: CorpusCase["action"]) => { allowed: boolean; violations?: readonly (string | { rule: string })[] } | Promise<{ allowed: boolean; violations?: readonly (string | { rule: string })[] }>,
  opts?: { verdictOnly?: boolean },
): Promise<CorpusRun>;
