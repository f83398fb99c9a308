// attncheck audit: the Node side of the wire-format check (tools/check_wire_format.py). Imports the
// Node example's codec (the path in argv[2]), reads one JSON request a line ({payload, out,
// out_type, lse, lse_type, key}: a CALL payload from src/attncheck/audit/wire_format.tsv and the
// answer its kernel gives) and prints one JSON line: what decodeCall read (typed arrays as the hex
// of their bytes), the RESULT handleCall encodes for that answer and for a Declined(5), or the
// error it refused the CALL with.
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";

const ex = await import(pathToFileURL(process.argv[2]).href);
const TYPES = { u8: Uint8Array, u16: Uint16Array, f32: Float32Array, f64: Float64Array };
const unhex = (s) => Uint8Array.from(s.match(/../g) ?? [], (h) => parseInt(h, 16));
const hex = (b) => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString("hex");
const typed = (s, type) => new TYPES[type](unhex(s).buffer);
const plain = (c) =>
  Object.fromEntries(Object.entries(c).map(([k, v]) => [k, ArrayBuffer.isView(v) ? hex(v) : Array.isArray(v) ? v.map(hex) : v]));

for await (const line of createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const q = JSON.parse(line);
  const payload = unhex(q.payload);
  const answer = { kinds: ex.KINDS };
  try {
    answer.call = plain(ex.decodeCall(payload));
    const give = async () => ({ o: typed(q.out, q.out_type), lse: typed(q.lse, q.lse_type) });
    const decline = async () => { throw new ex.Declined(5); };
    answer.result = hex(await ex.handleCall(payload, new Map([[q.key, give]])));
    answer.declined = hex(await ex.handleCall(payload, new Map([[q.key, decline]])));
  } catch (e) {
    answer.error = String(e.message);
  }
  console.log(JSON.stringify(answer));
}
