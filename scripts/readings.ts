/**
 * Writes test/fixtures/report/readings.txt, the readings of every bundled rule and exemption
 * (`npm run readings`; the same as `UPDATE_GOLDEN=1 npx vitest run test/cli/readings.test.ts`).
 * Review the diff of the file: each changed line is a changed reading.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { goldenText } from "../test/cli/readings-golden.js";

const root = fileURLToPath(new URL("..", import.meta.url));
const file = path.join(root, "test/fixtures/report/readings.txt");
fs.writeFileSync(file, goldenText(root));
console.log(`wrote ${path.relative(root, file)}`);
