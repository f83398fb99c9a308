// Serves ONNX Runtime's Softmax (CPU execution provider, onnxruntime-node 1.30.0; MLAS computes
// it) to attncheck as the softmax kernel at f32 (CALL kind 1; docs/audit-protocol.md):
//
//   attncheck audit --exec 'node examples/node/ort_softmax.mjs' --kernel softmax:f32 --subnormals flush
//
// MLAS's vectorised exp flushes results below the smallest normal (1.18e-38) to zero: under the
// default IEEE model the audit fails wherever an exact weight is subnormal, with the hint
// "Flushes subnormal results to zero"; declared --subnormals flush it is judged by that model
// (docs/formats.md, "Flush to zero"). An empty row is answered without a call (ORT refuses N = 0).
import ort from "onnxruntime-node";

import { serve } from "./attncheck_exec.mjs";
import { softmaxModel } from "./onnx_model.mjs";

let session = null;
async function softmax(c) {
  const x = c.inputs[0];
  if (x.length === 0) return { o: new Float32Array(0) };
  session ??= await ort.InferenceSession.create(softmaxModel(),
    { executionProviders: ["cpu"], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "disabled" });
  const out = await session.run({ x: new ort.Tensor("float32", Float32Array.from(x), [1, x.length]) });
  return { o: Float32Array.from(out.y.data) };
}

serve({ "softmax:f32": softmax });
