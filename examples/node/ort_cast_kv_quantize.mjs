// Serves ONNX Runtime's Cast to float8 (CPU execution provider, onnxruntime-node 1.30.0) as
// attncheck's FP8 cache write (ABI version 2's kv_quantize, CALL kind 14; docs/audit-protocol.md,
// include/attncheck/abi.h):
//
//   attncheck audit --exec 'node examples/node/ort_cast_kv_quantize.mjs' --abi 2 --kernel kv_quantize:f32
//
// The write is y = Div(x, scale) in float32, then Cast(y, to = FLOAT8E4M3FN or FLOAT8E5M2,
// saturate = 1 or 0) (onnx_model.mjs, castToFp8Model). onnxruntime-node has no float8 tensor type,
// so the model casts the codes back to float32 and this program names each code by its value (the
// FP8 values are exact in float32; a NaN stands for the format's NaN code 0x7f, with the sign).
// Only f32 is served (Div in float32 is the declared f32 arithmetic).
import ort from "onnxruntime-node";

import { serve } from "./attncheck_exec.mjs";
import { castToFp8Model, DataType } from "./onnx_model.mjs";

const FIELDS = { e4m3fn: [3, 7], e5m2: [2, 15] }; // mantissa bits, exponent bias

// The positive finite values of a format by code, from the fields (E4M3FN: 0x00..0x7e; E5M2: 0x00..0x7b).
function codeOfValue(format) {
  const [mbits, bias] = FIELDS[format];
  const last = format === "e4m3fn" ? 0x7e : 0x7b;
  const byValue = new Map();
  for (let c = 0; c <= last; c++) {
    const e = c >> mbits, m = c & ((1 << mbits) - 1);
    const v = e === 0 ? m * 2 ** (1 - bias - mbits) : ((1 << mbits) + m) * 2 ** (e - bias - mbits);
    byValue.set(v, c);
  }
  return byValue;
}
const CODES = { e4m3fn: codeOfValue("e4m3fn"), e5m2: codeOfValue("e5m2") };

function encodeValue(v, format) {
  const sign = v < 0 || Object.is(v, -0) ? 0x80 : 0;
  if (Number.isNaN(v)) return 0x7f;
  if (!Number.isFinite(v)) {
    if (format === "e4m3fn") throw new Error(`ORT's E4M3FN cast returned ${v}: no such value`);
    return sign | 0x7c;
  }
  const c = CODES[format].get(Math.abs(v));
  if (c === undefined) throw new Error(`ORT's ${format} cast returned ${v}, not an FP8 value`);
  return sign | c;
}

const sessions = new Map();
async function session(format, saturating) {
  const key = `${format}:${saturating}`;
  let s = sessions.get(key);
  if (!s) {
    s = await ort.InferenceSession.create(
      castToFp8Model({ fp8Type: format === "e4m3fn" ? DataType.FLOAT8E4M3FN : DataType.FLOAT8E5M2, saturate: saturating }),
      { executionProviders: ["cpu"], intraOpNumThreads: 1, interOpNumThreads: 1, graphOptimizationLevel: "disabled" });
    sessions.set(key, s);
  }
  return s;
}

async function kvQuantize(c) {
  const x = c.inputs[0];
  const s = await session(c.format, c.saturating);
  const out = await s.run({
    x: new ort.Tensor("float32", x, [x.length]),
    scale: new ort.Tensor("float32", Float32Array.of(c.fp8Scale), [1]),
  });
  const values = out.value.data;
  const codes = new Uint8Array(values.length);
  for (let i = 0; i < values.length; i++) codes[i] = encodeValue(values[i], c.format);
  return { o: codes };
}

serve({ "kv_quantize:f32": kvQuantize });
