// Preloaded with `node --require` into a measured process: on exit (process.exit included) it
// writes the process's peak resident set size, in KB, to the file named by $BENCH_RSS_FILE.
const fs = require("node:fs");
process.on("exit", () => {
  const file = process.env.BENCH_RSS_FILE;
  if (file) fs.writeFileSync(file, JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
});
