// Serves ONNX Runtime's com.microsoft.GroupQueryAttention (CPU execution provider,
// onnxruntime-node 1.30.0) as attncheck's attention over a packed variable-length batch (ABI
// version 2, CALL kind 11; docs/audit-protocol.md, include/attncheck/abi.h):
//
//   attncheck audit --exec 'node examples/node/ort_gqa_varlen.mjs' --abi 2 --no-lse \
//       --kernel attention_varlen:f32 --kernel attention_varlen:f16
//
// and as attention over a paged KV cache (CALL kind 12, --kernel attention_paged:DTYPE; gqaPaged at
// the end). What it declines is declared with --supports alibi=no --supports n_gt_m=no
// --supports top_left=no --supports window=no (examples/node/README.md).
//
// f32 computes in f32; f16 (= f16@f32) computes in f32 too: ORT's CPU kernel converts f16 Q, K and
// V to f32, keeps the scores and softmax weights in f32 and rounds the output once to f16.
// GroupQueryAttention returns no log-sum-exp: audit with --no-lse.
//
// How a packed batch becomes GQA calls. GQA takes a dense batch whose rows all have the same
// number S of new tokens; row b has past_b = total_b - S cached keys (past_key/past_value, BNSH,
// padded to the longest past) and S new ones (key/value), and query s of row b sees keys
// [0, past_b + s]: the causal mask aligned bottom-right per row. seqlens_k[b] = total_b - 1;
// total_sequence_length = the largest total_b; the call is a "first prompt" iff S equals it, and
// otherwise S must be 1 (decode) unless the batch has one row. So sequence b (n_b queries, m_b
// keys) is computed as a row with S = n_b and past_b = m_b - n_b, and the sequences are grouped:
//   n_b = 0            nothing to compute;
//   n_b = m_b          prompt rows, one GQA call per distinct n_b;
//   n_b = 1 < m_b      one decode call for all of them (past padded with zeros to the longest);
//   1 < n_b < m_b      one call per sequence (batch 1: a chunked prefill).
// Declined (a nonzero RESULT status: reported by attncheck, not judged), what GQA cannot compute:
//   2  n_b > m_b for a sequence with queries (its past would be negative; GQA's key count is S);
//   3  ALiBi slopes (GQA has none);
//   4  causal with top-left alignment where n_b != m_b (GQA's causal mask is bottom-right);
//   5  a window (left or right) without the causal mask: local_window_size is a causal window
//      (with the causal mask a right window changes nothing, and is accepted);
//   6  (only with --no-pad) head sizes GQA refuses: d != dv, or d not a multiple of 8;
//   7  a scale that is 0 or infinite as the f32 attribute (attncheck draws none).
// Head sizes. ORT's CPU GQA takes one head size for q, k and v, a multiple of 8, while attncheck
// draws d in 1..12 and dv in 1..5. By default the q/k rows are padded with zeros to H = the next
// multiple of 8 of max(d, dv) and the v rows likewise, and the extra output columns dropped: q·k
// gains only 0·0 terms (exact) and each output column uses its own v column only, and the scale is
// passed explicitly (the attribute), so the padded problem has the same exact answer and ORT
// computes it with its own arithmetic. --no-pad declines those inputs instead (status 6).
// The window: ORT 1.30's local_window_size W means W keys, the current one included, so
// window_left = L is local_window_size = L + 1.
//
// ORT runs with one intra-op and one inter-op thread (attncheck runs one program per worker).
// Set ORT_GQA_DECLINE_LOG=FILE to have one line per call appended to FILE: the status and why
// (declined), or "0 computed: ..." with the GQA calls it took.

import { appendFileSync } from "node:fs";
import ort from "onnxruntime-node";

import { Declined, serve } from "./attncheck_exec.mjs";
import { DataType, groupQueryAttentionModel } from "./onnx_model.mjs";

const PAD = !process.argv.includes("--no-pad");
const DECLINE_LOG = process.env.ORT_GQA_DECLINE_LOG;

const Decline = Object.freeze({ NEGATIVE_PAST: 2, ALIBI: 3, TOP_LEFT: 4, WINDOW: 5, HEAD_SIZE: 6, SCALE: 7 });

function decline(code, why) {
  if (DECLINE_LOG) appendFileSync(DECLINE_LOG, `${code} ${why}\n`);
  throw new Declined(code, why);
}

// ---- sessions ---------------------------------------------------------------------------------------

const sessions = new Map(); // by the model's attributes, element type and inputs

async function session(attrs) {
  const key = JSON.stringify(attrs);
  let s = sessions.get(key);
  if (!s) {
    s = await ort.InferenceSession.create(groupQueryAttentionModel(attrs), {
      executionProviders: ["cpu"],
      intraOpNumThreads: 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: "disabled", // one node: nothing to optimise, nothing to fuse away
    });
    sessions.set(key, s);
  }
  return s;
}

// ---- the kernel ---------------------------------------------------------------------------------------

/** What GQA cannot compute, or null. */
function unsupported(c, seqs) {
  if (c.alibiSlopes) return [Decline.ALIBI, "ALiBi slopes: GroupQueryAttention has none"];
  if (!(Math.fround(c.scale) > 0) || !Number.isFinite(Math.fround(c.scale)))
    return [Decline.SCALE, `scale ${c.scale} is 0 or infinite in f32 (the attribute's 0 means 1/sqrt(head size))`];
  for (const { n, m } of seqs)
    if (n > m) return [Decline.NEGATIVE_PAST, `a sequence of ${n} queries and ${m} keys: GQA's new keys are its queries`];
  if (!c.causal && (c.windowLeft >= 0 || c.windowRight >= 0))
    return [Decline.WINDOW, "a window without the causal mask: local_window_size is a causal window"];
  if (c.causal && c.alignment === "top_left" && seqs.some(({ n, m }) => n !== m))
    return [Decline.TOP_LEFT, "causal aligned top-left with n_b != m_b: GQA aligns bottom-right"];
  if (!PAD && (c.d !== c.dv || c.d % 8 !== 0))
    return [Decline.HEAD_SIZE, `d = ${c.d}, dv = ${c.dv}: GQA takes one head size, a multiple of 8 (--no-pad)`];
  return null;
}

/**
 * One GQA call on a group of sequences that share S = n_b (rows of the dense batch), writing each
 * sequence's output rows into o. withPast: the keys before the last S of each sequence go into
 * past_key/past_value (BNSH, padded with zeros to the longest past).
 */
async function runGroup(c, group, S, withPast, model, H, o) {
  const { heads: N, kvHeads: Nkv, d, dv } = c;
  const [q, k, v] = c.inputs;
  const Typed = c.storage === "f16" ? Uint16Array : Float32Array; // f16: raw bits, +0 is 0x0000
  const B = group.length;
  const totals = group.map((g) => g.m);
  const maxTotal = Math.max(...totals);
  const P = withPast ? Math.max(...totals.map((t) => t - S)) : 0;

  const query = new Typed(B * S * N * H);
  const key = new Typed(B * S * Nkv * H);
  const value = new Typed(B * S * Nkv * H);
  const pastKey = new Typed(B * Nkv * P * H);
  const pastValue = new Typed(B * Nkv * P * H);
  group.forEach(({ q0, k0, m }, b) => {
    const past = m - S;
    for (let s = 0; s < S; s++)
      for (let h = 0; h < N; h++)
        for (let t = 0; t < d; t++) query[((b * S + s) * N + h) * H + t] = q[((q0 + s) * N + h) * d + t];
    for (let j = 0; j < m; j++)
      for (let g = 0; g < Nkv; g++) {
        // Key j of the sequence: a past row (BNSH) when j < past, else new token j - past (BSNH).
        const at = j < past ? ((b * Nkv + g) * P + j) * H : ((b * S + (j - past)) * Nkv + g) * H;
        const [toK, toV] = j < past ? [pastKey, pastValue] : [key, value];
        for (let t = 0; t < d; t++) toK[at + t] = k[((k0 + j) * Nkv + g) * d + t];
        for (let t = 0; t < dv; t++) toV[at + t] = v[((k0 + j) * Nkv + g) * dv + t];
      }
  });

  const type = c.storage === "f16" ? "float16" : "float32";
  const feeds = {
    query: new ort.Tensor(type, query, [B, S, N * H]),
    key: new ort.Tensor(type, key, [B, S, Nkv * H]),
    value: new ort.Tensor(type, value, [B, S, Nkv * H]),
    seqlens_k: new ort.Tensor("int32", Int32Array.from(totals, (t) => t - 1), [B]),
    total_sequence_length: new ort.Tensor("int32", Int32Array.of(maxTotal), [1]),
  };
  if (withPast) {
    feeds.past_key = new ort.Tensor(type, pastKey, [B, Nkv, P, H]);
    feeds.past_value = new ort.Tensor(type, pastValue, [B, Nkv, P, H]);
  }
  const sess = await session({ ...model, withPast });
  const out = (await sess.run(feeds, ["output"])).output.data; // (B, S, N·H)
  group.forEach(({ q0 }, b) => {
    for (let s = 0; s < S; s++)
      for (let h = 0; h < N; h++)
        for (let t = 0; t < dv; t++) o[((q0 + s) * N + h) * dv + t] = out[((b * S + s) * N + h) * H + t];
  });
}

async function gqaVarlen(c) {
  if (c.wantLse) throw new Error("GroupQueryAttention returns no log-sum-exp: audit it with --no-lse");
  const seqs = [];
  for (let b = 0; b < c.batch; b++) {
    const q0 = c.cuSeqlensQ[b], k0 = c.cuSeqlensK[b];
    seqs.push({ q0, k0, n: c.cuSeqlensQ[b + 1] - q0, m: c.cuSeqlensK[b + 1] - k0 });
  }
  const live = seqs.filter((s) => s.n > 0); // a sequence without queries has no output
  const why = unsupported(c, live);
  if (why) decline(...why);

  // The head size GQA sees: d (= dv) itself, or padded to a multiple of 8 (see the top).
  const H = PAD ? 8 * Math.ceil(Math.max(c.d, c.dv) / 8) : c.d;
  const model = {
    numHeads: c.heads,
    kvNumHeads: c.kvHeads,
    scale: c.scale, // rounded to f32 by the attribute, as any ORT model stores it
    softcap: c.softcap,
    // ORT 1.30: W keys including the current one; a causal window_right changes nothing.
    localWindowSize: c.causal && c.windowLeft >= 0 ? c.windowLeft + 1 : -1,
    causal: c.causal ? 1 : 0,
    elemType: c.storage === "f16" ? DataType.FLOAT16 : DataType.FLOAT,
  };
  const o = new (c.storage === "f16" ? Uint16Array : Float32Array)(c.outCount);
  const prompts = new Map(); // S -> sequences with n_b = m_b = S
  const decode = [];
  let chunked = 0;
  for (const s of live) {
    if (s.n === s.m) prompts.set(s.n, [...(prompts.get(s.n) ?? []), s]);
    else if (s.n === 1) decode.push(s);
    else {
      await runGroup(c, [s], s.n, true, model, H, o); // chunked prefill: batch 1
      chunked++;
    }
  }
  for (const [S, group] of prompts) await runGroup(c, group, S, false, model, H, o);
  if (decode.length) await runGroup(c, decode, 1, true, model, H, o);
  if (DECLINE_LOG)
    appendFileSync(DECLINE_LOG, `0 computed: ${prompts.size} prompt, ${decode.length ? 1 : 0} decode, ${chunked} chunked calls; ` +
      `causal ${c.causal}, window ${model.localWindowSize}, softcap ${c.softcap}, d ${c.d}, dv ${c.dv}\n`);
  return { o };
}

// attention_paged (CALL kind 12): GQA's past_key/past_value are contiguous, so sequence b's m_b keys
// and values are gathered from the pages the block table names, in logical order (exact copies;
// no stale slot is read), and the packed batch is computed as above.
async function gqaPaged(c) {
  const [q, kCache, vCache] = c.inputs;
  const { batch: B, kvHeads: Nkv, d, dv, pageSize: ps, pagesPerSequence: pps } = c;
  const cuK = new Int32Array(B + 1);
  for (let b = 0; b < B; b++) cuK[b + 1] = cuK[b] + c.sequsedK[b];
  const k = new q.constructor(cuK[B] * Nkv * d), v = new q.constructor(cuK[B] * Nkv * dv);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < c.sequsedK[b]; t++) {
      const slot = c.blockTable[b * pps + Math.floor(t / ps)] * ps + (t % ps);
      k.set(kCache.subarray(slot * Nkv * d, (slot + 1) * Nkv * d), (cuK[b] + t) * Nkv * d);
      v.set(vCache.subarray(slot * Nkv * dv, (slot + 1) * Nkv * dv), (cuK[b] + t) * Nkv * dv);
    }
  return gqaVarlen({ ...c, cuSeqlensK: cuK, inputs: [q, k, v] });
}

serve({
  "attention_varlen:f32": gqaVarlen, "attention_varlen:f16@f32": gqaVarlen,
  "attention_paged:f32": gqaPaged, "attention_paged:f16@f32": gqaPaged,
});
