/**
 * The words of the board builtins for readings (english.ts): each predicate as a sentence and
 * its negation, each collection as a noun phrase and as one element ("some port on the sea zone").
 */
import type { BoardDomainFn, BoardFn } from "../ir/types.js";

/** Board predicates: a sentence with the arguments in place of $0, $1. */
export const BOARD_FN: Record<BoardFn, string> = {
  is_land: "$0 is a land space",
  is_sea: "$0 is a sea zone",
  is_port: "$0 is a port",
  is_fortified: "$0 is fortified",
  is_key: "$0 is a key space",
  is_electorate: "$0 is an electorate",
  is_capital: "$0 is the capital of $1",
  is_home: "$0 is a home space of $1",
  adjacent: "$0 is adjacent to $1",
  pass_between: "a mountain pass lies between $0 and $1",
  port_on: "$0 is a port on $1",
};

/** Board predicates negated. */
export const BOARD_FN_NOT: Record<BoardFn, string> = {
  is_land: "$0 is not a land space",
  is_sea: "$0 is not a sea zone",
  is_port: "$0 is not a port",
  is_fortified: "$0 is not fortified",
  is_key: "$0 is not a key space",
  is_electorate: "$0 is not an electorate",
  is_capital: "$0 is not the capital of $1",
  is_home: "$0 is not a home space of $1",
  adjacent: "$0 is not adjacent to $1",
  pass_between: "no mountain pass lies between $0 and $1",
  port_on: "$0 is not a port on $1",
};

/** Board collections: a noun phrase with the arguments in place of $0. */
export const BOARD_DOMAIN: Record<BoardDomainFn, string> = {
  ports_of: "the ports on $0",
  sea_zones_of: "the sea zones touching $0",
  neighbors: "the spaces connected to $0",
};

/** One element of a board collection, for a quantifier: "some port on the sea zone". */
export const BOARD_ELEMENT: Record<BoardDomainFn, [noun: string, tail: string]> = {
  ports_of: ["port", " on $0"],
  sea_zones_of: ["sea zone", " touching $0"],
  neighbors: ["space", " connected to $0"],
};
