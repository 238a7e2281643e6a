/** board.json: shape (ajv) and consistency checks. Home powers are checked later, against Power. */
import { Ajv } from "ajv";
import type { DiagnosticCode } from "../diagnostics/catalog.js";
import type { Help } from "../diagnostics/suggest.js";
import type { Board } from "../ir/types.js";
import { KEYWORDS } from "../syntax/tokens.js";

const BOARD_SCHEMA = {
  type: "object",
  required: ["spaces", "connections"],
  properties: {
    spaces: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "name", "type", "home"],
        properties: {
          id: { type: "string" },
          name: { type: "string" },
          type: { enum: ["normal", "key", "fortress", "capital", "electorate", "sea"] },
          home: { type: "array", items: { type: "string" } },
        },
      },
    },
    connections: {
      type: "array",
      items: {
        type: "object",
        required: ["from", "to", "type"],
        properties: {
          from: { type: "string" },
          to: { type: "string" },
          type: { enum: ["normal", "pass", "port", "sea"] },
        },
      },
    },
  },
} as const;

const ajv = new Ajv({ allErrors: true });
const validateShape = ajv.compile(BOARD_SCHEMA);
const KEYWORD_SET = new Set<string>(KEYWORDS);

type Report = (code: DiagnosticCode, message: string, ptr: string, help?: Help) => void;

export function checkBoard(json: unknown, report: Report): Board | undefined {
  if (!validateShape(json)) {
    for (const e of validateShape.errors ?? []) {
      const where = e.instancePath || "the board";
      const extra = e.keyword === "enum" ? ` (one of ${(e.params as { allowedValues: string[] }).allowedValues.map((v) => "`" + v + "`").join(", ")})` : "";
      report("RW4007", `\`${where}\` ${e.message ?? "is invalid"}${extra}`, e.instancePath,
        'a board is `{ "spaces": [{ "id", "name", "type", "home": [] }], "connections": [{ "from", "to", "type" }] }`');
    }
    return undefined;
  }
  const board = json as Board;
  const byId = new Map<string, number>();
  let ok = true;
  board.spaces.forEach((s, i) => {
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.id) || KEYWORD_SET.has(s.id)) {
      report("RW4008", `space id \`${s.id}\` is not ${KEYWORD_SET.has(s.id) ? "usable (it is a keyword)" : "an identifier"}`, `/spaces/${i}/id`,
        "space ids are enum members: snake_case identifiers that are not keywords");
      ok = false;
    }
    if (byId.has(s.id)) {
      report("RW4008", `duplicate space id \`${s.id}\` (first at \`/spaces/${byId.get(s.id)}\`)`, `/spaces/${i}/id`, "give every space a distinct id");
      ok = false;
    } else byId.set(s.id, i);
    if (s.type === "sea" && s.home.length) report("RW4008", `sea zone \`${s.id}\` has home powers`, `/spaces/${i}/home`, "sea zones have `\"home\": []`");
  });
  board.connections.forEach((c, i) => {
    const ends = [c.from, c.to].map((id, j) => {
      const k = byId.get(id);
      if (k === undefined) {
        report("RW4008", `connection to unknown space \`${id}\``, `/connections/${i}/${j ? "to" : "from"}`, "use the id of a space listed in `spaces`");
        ok = false;
      }
      return k === undefined ? undefined : board.spaces[k];
    });
    const [a, b] = ends;
    if (!a || !b) return;
    const seas = (a.type === "sea" ? 1 : 0) + (b.type === "sea" ? 1 : 0);
    const want = c.type === "sea" ? 2 : c.type === "port" ? 1 : 0;
    if (seas !== want) {
      const what = c.type === "sea" ? "two sea zones" : c.type === "port" ? "a land space and a sea zone" : "two land spaces";
      report("RW4008", `\`${c.type}\` connection \`${c.from}\`–\`${c.to}\` must join ${what}`, `/connections/${i}/type`, "fix the connection type or the space types");
      ok = false;
    }
  });
  return ok ? board : undefined;
}
