// The server side of attncheck's exec protocol, version 2 (docs/audit-protocol.md), for Node:
// the frames, the CALL decoding and the RESULT encoding. It mirrors the Python package's
// attncheck.serve (python/src/attncheck/protocol.py) for the kinds a Node program here serves:
// attention over a packed variable-length batch (CALL kind 11, `--kernel attention_varlen:DTYPE
// --abi 2`), attention over a paged KV cache (CALL kind 12, `--kernel attention_paged:DTYPE`) and
// the FP8 cache write (CALL kind 14, `--kernel kv_quantize:DTYPE`). Other kinds are
// answered with an ERROR saying they are not served.
//
//   import { serve, Declined } from "./attncheck_exec.mjs";
//   serve({ "attention_varlen:f32": async (call) => ({ o, lse }) });
//
// A kernel is keyed by KIND:DTYPE as attncheck spells it: "f32", "f64", "f16@f32" (also "f16"),
// "bf16@f32" (also "bf16"), "f16@f16", "bf16@bf16". It receives the decoded call (see decodeCall)
// with its inputs as they travel: Float32Array / Float64Array for f32 / f64, Uint16Array holding
// the raw bits for f16 and bf16 (no conversion is done here: the kernel decides what to do with
// them). It returns { o } (and lse when call.wantLse) in the same representation: o a typed array
// of the storage format (Uint16Array of bits for 16-bit storage), lse a Float32Array (Float64Array
// for f64 storage), or throws Declined(code) to decline the input (reported, not judged).
//
// Only stdout carries frames: console.log is redirected to stderr.

const MAGIC = [0x41, 0x54, 0x43, 0x4b]; // "ATCK"
const VERSION = 2;
const HELLO = 1, CALL = 2, RESULT = 3, ERROR = 4;
const HEADER_BYTES = 12;
const MAX_PAYLOAD = 64 << 20; // attncheck's limit on any frame

export const KINDS = Object.freeze({
  1: "softmax", 2: "log_softmax", 3: "scores", 4: "rmsnorm", 5: "entropy", 6: "attention", 7: "softmax_jvp",
  8: "attention_v2", 9: "attention_backward", 10: "attention_merge", 11: "attention_varlen",
  12: "attention_paged", 13: "attention_fp8kv", 14: "kv_quantize",
});
const FP8_FORMATS = Object.freeze({ 0: "e4m3fn", 1: "e5m2" });
// CALL's dtype byte: the storage format, its element width.
const STORAGE = Object.freeze({ 1: ["f16", 2], 2: ["bf16", 2], 3: ["f32", 4], 4: ["f64", 8] });
const ALIASES = Object.freeze({ f16: "f16@f32", bf16: "bf16@f32", "f32@f32": "f32", "f64@f64": "f64" });
const DTYPES = ["f32", "f64", "f16@f32", "bf16@f32", "f16@f16", "bf16@bf16"];

/** Thrown by a kernel that does not handle an input: a RESULT with this nonzero status. */
export class Declined extends Error {
  constructor(code = 1, why = "") {
    super(why || `declined (status ${code})`);
    this.code = code || 1;
  }
}

/** A frame attncheck should not have sent, or a kernel answer of the wrong shape. */
export class ProtocolError extends Error {}

function canonicalKey(key) {
  const [kind, dtype, extra] = key.split(":");
  if (dtype === undefined || extra !== undefined) throw new Error(`kernel key ${key} is not KIND:DTYPE`);
  if (!Object.values(KINDS).includes(kind)) throw new Error(`unknown kernel kind ${kind}`);
  const d = ALIASES[dtype] ?? dtype;
  if (!DTYPES.includes(d)) throw new Error(`unknown dtype ${dtype}; use one of ${DTYPES.join(", ")}`);
  return `${kind}:${d}`;
}

// ---- reading a CALL ---------------------------------------------------------------------------------

/** A little-endian reader over one payload that refuses to read past its end. */
class Reader {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = 0;
  }
  need(n) {
    if (this.at + n > this.bytes.length) throw new ProtocolError("CALL payload too short");
    const at = this.at;
    this.at += n;
    return at;
  }
  u8() { return this.view.getUint8(this.need(1)); }
  u32() { return this.view.getUint32(this.need(4), true); }
  i32() { return this.view.getInt32(this.need(4), true); }
  u64() {
    const v = this.view.getBigUint64(this.need(8), true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new ProtocolError(`count ${v} out of range`);
    return Number(v);
  }
  i64() { return Number(this.view.getBigInt64(this.need(8), true)); }
  f64() { return this.view.getFloat64(this.need(8), true); }
  skip(n) { this.need(n); }
  /** count elements of the given width, copied into a fresh (aligned) typed array. */
  elements(count, width, Type) {
    const at = this.need(count * width);
    const copy = new Uint8Array(count * width);
    copy.set(this.bytes.subarray(at, at + count * width));
    return new Type(copy.buffer); // little-endian hosts only (checked at start)
  }
}

const ELEMENT_TYPES = { f16: Uint16Array, bf16: Uint16Array, f32: Float32Array, f64: Float64Array };

/**
 * One CALL payload, decoded: { kind, storage, dtype (canonical), causal, n, m, d, dv, eps,
 * outCount, inputs: [typed arrays] } and, for the attention kinds (8, 9, 11, 12): batch, heads,
 * kvHeads, scale, alignment ("top_left" | "bottom_right"), windowLeft, windowRight (-1
 * unbounded), softcap (0 off), alibiSlopes (null or Float64Array), lseCount, wantLse; for kind 11
 * also cuSeqlensQ, cuSeqlensK (Int32Array of B + 1); for kind 12 cuSeqlensQ, sequsedK, blockTable
 * (Int32Array) and pageSize, numPages, pagesPerSequence.
 */
export function decodeCall(payload) {
  const r = new Reader(payload);
  const c = {};
  const kindCode = r.u8(), dtypeCode = r.u8(), causal = r.u8(), arith = r.u8();
  if (!(kindCode in KINDS) || !(dtypeCode in STORAGE) || (arith !== 0 && arith !== 3))
    throw new ProtocolError("unknown kind, dtype or arithmetic code");
  c.kind = KINDS[kindCode];
  const [storage, width] = STORAGE[dtypeCode];
  c.storage = storage;
  // The arithmetic byte: 0 the storage format's own, 3 f32 (only meaningful for 16-bit storage).
  c.dtype = storage === "f16" || storage === "bf16" ? `${storage}@${arith === 3 ? "f32" : storage}` : storage;
  const inputs = r.u32();
  c.causal = causal !== 0;
  c.n = r.u64(); c.m = r.u64(); c.d = r.u64(); c.dv = r.u64();
  c.eps = r.f64();
  c.outCount = r.u64();
  c.lseCount = 0;
  if (kindCode === 8 || kindCode === 9 || kindCode === 11 || kindCode === 12) {
    // The attention block: batch heads kv_heads scale alignment (3 reserved) slope_count
    // window_left window_right softcap, the slopes, then the LSE count.
    c.batch = r.u64(); c.heads = r.u64(); c.kvHeads = r.u64();
    c.scale = r.f64();
    c.alignment = r.u8() ? "bottom_right" : "top_left";
    r.skip(3);  // u16 num_splits (0: these kernels are not declared with --splits), 1 reserved
    const slopes = r.u32();
    c.windowLeft = r.i64(); c.windowRight = r.i64();
    c.softcap = r.f64();
    c.alibiSlopes = slopes ? r.elements(slopes, 8, Float64Array) : null;
    c.lseCount = r.u64();
    if (kindCode === 9) r.skip(c.lseCount * (storage === "f64" ? 8 : 4)); // kind 9's given LSE (not served here)
  }
  if (kindCode === 10) {
    c.lseCount = r.u64();
    const parts = r.u64();
    c.lseParts = r.elements(parts, storage === "f64" ? 8 : 4, storage === "f64" ? Float64Array : Float32Array);
  }
  if (kindCode === 11) {
    // The varlen block: B + 1 offsets of each array.
    const count = r.u64();
    if (count !== c.batch + 1) throw new ProtocolError(`varlen block holds ${count} offsets per array, B + 1 is ${c.batch + 1}`);
    c.cuSeqlensQ = r.elements(count, 4, Int32Array);
    c.cuSeqlensK = r.elements(count, 4, Int32Array);
  }
  if (kindCode === 14) {
    // The fp8 block: format, saturating, 2 reserved bytes, the scale count (1), the scale (f32).
    const format = r.u8(), saturating = r.u8();
    r.skip(2);
    const count = r.u32();
    if (!(format in FP8_FORMATS) || saturating > 1 || count !== 1)
      throw new ProtocolError(`kv_quantize's fp8 block: format ${format}, saturating ${saturating}, ${count} scales`);
    c.format = FP8_FORMATS[format];
    c.saturating = saturating === 1;
    c.fp8Scale = r.elements(1, 4, Float32Array)[0];
  } else if (kindCode === 12) {
    // The paged block: page_size num_pages pages_per_sequence, then cu_seqlens_q (B + 1),
    // seqused_k (B) and block_table (B x pages_per_sequence), each after its count.
    c.pageSize = r.u64(); c.numPages = r.u64(); c.pagesPerSequence = r.u64();
    const counts = [c.batch + 1, c.batch, c.batch * c.pagesPerSequence];
    [c.cuSeqlensQ, c.sequsedK, c.blockTable] = counts.map((want, i) => {
      const count = r.u64();
      if (count !== want) throw new ProtocolError(`paged block array ${i} holds ${count} entries, expected ${want}`);
      return r.elements(count, 4, Int32Array);
    });
  } else if (kindCode === 13) {
    throw new ProtocolError(`this program serves no ${KINDS[kindCode]} kernel (its CALL blocks are not decoded here)`);
  }
  c.wantLse = c.lseCount > 0 && (kindCode === 8 || kindCode === 10 || kindCode === 11 || kindCode === 12);
  c.inputs = [];
  for (let i = 0; i < inputs; i++) {
    const count = r.u64();
    c.inputs.push(r.elements(count, width, ELEMENT_TYPES[storage]));
  }
  if (kindCode === 11) {
    const tq = c.cuSeqlensQ[c.batch], tk = c.cuSeqlensK[c.batch];
    const want = [tq * c.heads * c.d, tk * c.kvHeads * c.d, tk * c.kvHeads * c.dv];
    ["q", "k", "v"].forEach((name, i) => {
      if (c.inputs[i]?.length !== want[i])
        throw new ProtocolError(`varlen ${name} holds ${c.inputs[i]?.length} elements, the offsets say ${want[i]}`);
    });
  }
  return c;
}

// ---- answering ----------------------------------------------------------------------------------------

const LSE_KINDS = new Set(["attention_v2", "attention_merge", "attention_varlen", "attention_paged"]); // RESULT with an LSE part

function resultPayload(status, out, lse, withLsePart) {
  const outBytes = out ? new Uint8Array(out.buffer, out.byteOffset, out.byteLength) : new Uint8Array(0);
  const lseBytes = lse ? new Uint8Array(lse.buffer, lse.byteOffset, lse.byteLength) : new Uint8Array(0);
  const p = new Uint8Array(16 + outBytes.length + (withLsePart ? 8 + lseBytes.length : 0));
  const v = new DataView(p.buffer);
  v.setInt32(0, status, true);
  v.setUint32(4, 0, true);
  v.setBigUint64(8, BigInt(out ? out.length : 0), true);
  p.set(outBytes, 16);
  if (withLsePart) {
    v.setBigUint64(16 + outBytes.length, BigInt(lse ? lse.length : 0), true);
    p.set(lseBytes, 24 + outBytes.length);
  }
  return p;
}

/** One CALL payload -> its RESULT payload (a Declined kernel gives a declining RESULT). */
export async function handleCall(payload, table) {
  const c = decodeCall(payload);
  const fn = table.get(`${c.kind}:${c.dtype}`);
  // The wording attncheck recognises as "not served" (docs/audit-protocol.md, Conversation 2).
  if (!fn) throw new ProtocolError(`this program serves no ${c.kind}:${c.dtype} kernel`);
  const withLse = LSE_KINDS.has(c.kind);
  let answer;
  try {
    answer = await fn(c);
  } catch (e) {
    if (e instanceof Declined) return resultPayload(e.code, null, null, withLse);
    throw e;
  }
  const OutType = c.kind === "kv_quantize" ? Uint8Array : ELEMENT_TYPES[c.storage]; // kind 14: one byte per code
  if (!(answer?.o instanceof OutType) || answer.o.length !== c.outCount)
    throw new ProtocolError(`${c.kind}:${c.dtype} returned ${answer?.o?.length} ${answer?.o?.constructor?.name} values, expected ${c.outCount} in a ${OutType.name}`);
  let lse = null;
  if (withLse && c.lseCount > 0) {
    const LseType = c.storage === "f64" ? Float64Array : Float32Array;
    if (!(answer.lse instanceof LseType) || answer.lse.length !== c.lseCount)
      throw new ProtocolError(`${c.kind}:${c.dtype} returned no ${LseType.name} LSE of ${c.lseCount} values`);
    lse = answer.lse;
  }
  return resultPayload(0, answer.o, lse, withLse);
}

function frame(type, payload) {
  const f = new Uint8Array(HEADER_BYTES + payload.length);
  f.set(MAGIC, 0);
  f[4] = VERSION;
  f[5] = type;
  new DataView(f.buffer).setUint32(8, payload.length, true);
  f.set(payload, HEADER_BYTES);
  return f;
}

/** Reads exactly n bytes from an async iterator of Buffers (null at a clean end of input). */
class ByteQueue {
  constructor(iterable) {
    this.it = iterable[Symbol.asyncIterator]();
    this.chunks = [];
    this.length = 0;
  }
  async read(n) {
    while (this.length < n) {
      const { value, done } = await this.it.next();
      if (done) {
        if (this.length === 0) return null;
        throw new ProtocolError("truncated frame");
      }
      this.chunks.push(value);
      this.length += value.length;
    }
    const all = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks);
    const out = Uint8Array.prototype.slice.call(all, 0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length ? [rest] : [];
    this.length = rest.length;
    return out;
  }
}

/**
 * Serves kernels to `attncheck audit --exec 'node this.mjs' --abi 2 --kernel KIND:DTYPE` on
 * stdin/stdout until attncheck closes stdin. kernels maps "KIND:DTYPE" to an (async) function.
 */
export async function serve(kernels) {
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) throw new Error("attncheck_exec.mjs needs a little-endian host");
  const table = new Map(Object.entries(kernels).map(([k, fn]) => [canonicalKey(k), fn]));
  console.log = console.error; // a stray print must not corrupt the frame stream
  const out = process.stdout;
  const send = (type, payload) =>
    new Promise((resolve, reject) => out.write(frame(type, payload), (err) => (err ? reject(err) : resolve())));
  const input = new ByteQueue(process.stdin);
  for (;;) {
    let head;
    try {
      head = await input.read(HEADER_BYTES);
      if (head === null) break; // attncheck closed our input: done
      const length = new DataView(head.buffer, head.byteOffset).getUint32(8, true);
      const reserved = head[6] | (head[7] << 8);
      if (MAGIC.some((b, i) => head[i] !== b) || head[4] !== VERSION || reserved !== 0 || length > MAX_PAYLOAD)
        throw new ProtocolError(`bad header (this server speaks exec protocol version ${VERSION})`);
      const payload = length ? await input.read(length) : new Uint8Array(0);
      if (payload === null) throw new ProtocolError("truncated payload");
      if (head[5] === HELLO) {
        const hello = new Uint8Array(4);
        new DataView(hello.buffer).setUint32(0, VERSION, true);
        await send(HELLO, hello);
      } else if (head[5] === CALL) {
        await send(RESULT, await handleCall(payload, table));
      } else {
        throw new ProtocolError(`unexpected frame type ${head[5]}`);
      }
    } catch (e) {
      // A protocol error (an unserved kernel among them) is answered with ERROR and ends the
      // program, as attncheck.serve does; attncheck restarts it for the next call. Any other
      // exception is a failure of the kernel: its message goes out as ERROR too (attncheck reports
      // "program reported an error: ..."; an allocation failure's text names its --memory limit).
      const text = e instanceof ProtocolError ? e.message : `${e?.name ?? "Error"}: ${e?.message ?? e}`;
      if (e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError) console.error(e); // a bug here: its stack
      await send(ERROR, new TextEncoder().encode(text).subarray(0, 4096));
      break;
    }
  }
  process.stdin.destroy();
}
