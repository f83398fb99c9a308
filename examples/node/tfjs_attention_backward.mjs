// Serves TensorFlow.js's automatic differentiation (@tensorflow/tfjs 4.22.0, its pure-JavaScript
// "cpu" backend) to attncheck as the backward pass of attention at f32 (CALL kind 9,
// `--kernel attention_backward:f32`; docs/audit-protocol.md):
//
//   attncheck audit --exec 'node examples/node/tfjs_attention_backward.mjs' --kernel attention_backward:f32
//
// The forward is written with TF.js's own ops (matMul, mul, tanh for the soft-cap, the ALiBi bias,
// where for the mask, softmax, matMul) and differentiated by tf.grads with dO as the upstream
// gradient, as a training step does: the kernel recomputes its forward and ignores the o and LSE
// attncheck hands it (the allowances cover that, contracts/attention-backward-v1.yaml). Grouped
// query heads read key/value head h / g through a gather (TF.js differentiates it by summing the
// group's gradients). A row that sees no key gives zeros in the forward and no gradient. Every
// tensor is float32, so this is the f32 recipe; TF.js has no 16-bit CPU tensors.
import * as tf from "@tensorflow/tfjs";

import { serve } from "./attncheck_exec.mjs";

// The cpu backend's banner on first use ("Hi, looks like you are running TensorFlow.js in
// Node.js ...") goes to console.warn unless in production mode, which changes no arithmetic (it
// only skips debug-mode checks): without it every restart of this program writes it to stderr.
tf.enableProdMode();
await tf.setBackend("cpu");

/** The n x m mask of the keys each query sees, and |diag - j| for ALiBi (attention_problem.hpp). */
function visibility(c) {
  const { n, m } = c;
  const vis = new Uint8Array(n * m), dist = new Float32Array(n * m), sees = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const diag = i + (c.alignment === "bottom_right" ? m - n : 0);
    for (let j = 0; j < m; j++) {
      let v = true;
      if (c.causal) v &&= j <= diag;
      if (c.windowLeft >= 0) v &&= j >= diag - c.windowLeft;
      if (c.windowRight >= 0) v &&= j <= diag + c.windowRight;
      vis[i * m + j] = v ? 1 : 0;
      dist[i * m + j] = Math.abs(diag - j);
      if (v) sees[i] = 1;
    }
  }
  return { vis, dist, sees };
}

function attentionBackward(c) {
  const { batch: B, heads: H, kvHeads: Hkv, n, m, d, dv } = c;
  const [q, k, v, , dout] = c.inputs;
  const g = H / Hkv;
  const { vis, dist, sees } = visibility(c);
  const grads = tf.tidy(() => {
    const Q = tf.tensor4d(q, [B, n, H, d]).transpose([0, 2, 1, 3]);
    const K = tf.tensor4d(k, [B, m, Hkv, d]).transpose([0, 2, 1, 3]);
    const V = tf.tensor4d(v, [B, m, Hkv, dv]).transpose([0, 2, 1, 3]);
    const dO = tf.tensor4d(dout, [B, n, H, dv]).transpose([0, 2, 1, 3]);
    const shape = [B, H, n, m];
    const visible = tf.tensor4d(vis, [1, 1, n, m], "bool").broadcastTo(shape);
    const seesKey = tf.tensor4d(sees, [1, 1, n, 1], "bool").broadcastTo(shape);
    const minusInf = tf.fill(shape, -Infinity);
    const zeros = tf.zeros(shape);
    const bias = c.alibiSlopes
      ? tf.tensor4d(Float32Array.from(c.alibiSlopes), [1, H, 1, 1]).mul(tf.tensor4d(dist, [1, 1, n, m]))
      : null;
    // Query head h reads key/value head floor(h / g): a gather along the head axis (its gradient
    // sums each group's head gradients, as repeat_interleave's backward does in PyTorch).
    const heads = tf.tensor1d(Int32Array.from({ length: H }, (_, h) => Math.floor(h / g)), "int32");
    const repeat = (X) => (g === 1 ? X : tf.gather(X, heads, 1));
    const forward = (Qx, Kx, Vx) => {
      let s = tf.matMul(Qx, repeat(Kx), false, true).mul(tf.scalar(c.scale));
      if (c.softcap > 0) s = tf.tanh(s.div(tf.scalar(c.softcap))).mul(tf.scalar(c.softcap));
      if (bias) s = s.sub(bias);
      s = tf.where(visible, s, minusInf);
      s = tf.where(seesKey, s, zeros); // a row without keys: softmax a finite row, weights zeroed
      const w = tf.where(seesKey, tf.softmax(s), zeros);
      return tf.matMul(w, repeat(Vx));
    };
    const [dQ, dK, dV] = tf.grads(forward)([Q, K, V], dO);
    return [dQ, dK, dV].map((t) => t.transpose([0, 2, 1, 3]).dataSync());
  });
  const o = new Float32Array(grads.reduce((s, a) => s + a.length, 0));
  let at = 0;
  for (const a of grads) { o.set(a, at); at += a.length; }
  return { o };
}

serve({ "attention_backward:f32": attentionBackward });
