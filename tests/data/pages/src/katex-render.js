// Renders the formulas of a page with KaTeX as a site does (server-side, or auto-render in the
// browser): `$$…$$` in display mode, `$…$` inline.
const katex = require("katex");
const fs = require("fs");
const src = fs.readFileSync(process.argv[2], "utf8");
const out = src
  .replace(/\$\$([^$]+)\$\$/g, (_, tex) => katex.renderToString(tex.trim(), { displayMode: true }))
  .replace(/\$([^$]+)\$/g, (_, tex) => katex.renderToString(tex.trim(), { displayMode: false }));
process.stdout.write(out);
