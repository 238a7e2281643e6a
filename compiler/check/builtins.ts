/** The board builtins of the rule language (dsl/README.md, "Board builtins"): their names and signatures. */
import type { BoardDomainFn, BoardFn } from "../ir/types.js";

/** The bool board builtins and the enums of their arguments. */
export const BOARD_FNS: Record<BoardFn, ("Space" | "Power")[]> = {
  is_land: ["Space"],
  is_sea: ["Space"],
  is_port: ["Space"],
  is_fortified: ["Space"],
  is_key: ["Space"],
  is_electorate: ["Space"],
  is_capital: ["Space", "Power"],
  is_home: ["Space", "Power"],
  adjacent: ["Space", "Space"],
  pass_between: ["Space", "Space"],
  port_on: ["Space", "Space"],
};
export const BOARD_DOMAIN_FNS: BoardDomainFn[] = ["ports_of", "sea_zones_of", "neighbors"];
/** The board builtin `distance(a, b)` (an int, unlike the bool `BOARD_FNS`; IR `{ k: "distance" }`). */
export const DISTANCE = "distance";
