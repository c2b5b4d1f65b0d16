import mermaid from 'mermaid';
import { readFileSync } from 'fs';
let bad = 0;
for (const f of process.argv.slice(2)) {
  try { await mermaid.parse(readFileSync(f, 'utf8')); console.log('ok ' + f); }
  catch (e) { bad++; console.log('FAIL ' + f + ': ' + (e.message || e)); }
}
process.exit(bad ? 1 : 0);
