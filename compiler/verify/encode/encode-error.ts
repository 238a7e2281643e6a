/** Thrown for constructs the prover does not support; the obligation becomes `unknown` (README "Encoding"). */
export class EncodeError extends Error {}
