// A minimal, hand-written ONNX protobuf encoder: just enough to build a model of one
// com.microsoft.GroupQueryAttention node (ONNX Runtime's contrib op) for InferenceSession.create,
// without the onnx Python package or a protobuf library. The field numbers are those of
// onnx/onnx.proto (docs/research/served-attention.md, section 1, lists the ones used here).
//
//   groupQueryAttentionModel({ numHeads, kvNumHeads, scale, softcap, localWindowSize, causal,
//                              elemType: DataType.FLOAT, withPast: true })  -> Uint8Array

// onnx.TensorProto.DataType
export const DataType = Object.freeze({ FLOAT: 1, INT32: 6, INT64: 7, FLOAT16: 10, BFLOAT16: 16, FLOAT8E4M3FN: 17, FLOAT8E5M2: 19 });

// ---- protobuf wire format ------------------------------------------------------------------------
// A message is a list of fields; each field is a key (field_number << 3 | wire_type) followed by
// a varint (type 0), a length-delimited byte string (type 2) or 4 little-endian bytes (type 5).

const WIRE_VARINT = 0;
const WIRE_BYTES = 2;
const WIRE_FIXED32 = 5;
const utf8 = new TextEncoder();

function varint(value) {
  // A negative int64 (local_window_size = -1) is sent as its 64-bit two's complement: 10 bytes.
  let v = BigInt.asUintN(64, BigInt(value));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v !== 0n) byte |= 0x80;
    out.push(byte);
  } while (v !== 0n);
  return out;
}

const key = (field, wire) => varint((field << 3) | wire);

/** A varint field. */
function intField(field, value) {
  return [...key(field, WIRE_VARINT), ...varint(value)];
}

/** A length-delimited field: a string (UTF-8), bytes, or an embedded message (an array of bytes). */
function bytesField(field, value) {
  const body = typeof value === "string" ? Array.from(utf8.encode(value)) : Array.from(value);
  return [...key(field, WIRE_BYTES), ...varint(body.length), ...body];
}

/** A fixed32 field holding an IEEE binary32 (AttributeProto.f). */
function floatField(field, value) {
  const b = new Uint8Array(4);
  new DataView(b.buffer).setFloat32(0, value, true);
  return [...key(field, WIRE_FIXED32), ...b];
}

// ---- ONNX messages ---------------------------------------------------------------------------------

const AttributeType = { FLOAT: 1, INT: 2 };

// AttributeProto: name = 1, f = 2, i = 3, type = 20.
function floatAttribute(name, value) {
  return [...bytesField(1, name), ...floatField(2, value), ...intField(20, AttributeType.FLOAT)];
}
function intAttribute(name, value) {
  return [...bytesField(1, name), ...intField(3, value), ...intField(20, AttributeType.INT)];
}

// ValueInfoProto { name = 1, type = 2 }; TypeProto { tensor_type = 1 }; TypeProto.Tensor
// { elem_type = 1, shape = 2 }; TensorShapeProto { dim = 1 }; Dimension { dim_value = 1,
// dim_param = 2 }. A string dimension is symbolic (any size at run time).
function valueInfo(name, elemType, dims) {
  const shape = dims.flatMap((d) => bytesField(1, typeof d === "string" ? bytesField(2, d) : intField(1, d)));
  const tensor = [...intField(1, elemType), ...bytesField(2, shape)];
  return [...bytesField(1, name), ...bytesField(2, bytesField(1, tensor))];
}

// NodeProto: input = 1, output = 2, name = 3, op_type = 4, attribute = 5, domain = 7. An omitted
// optional input is the empty string.
function node({ inputs, outputs, name, opType, domain, attributes }) {
  return [
    ...inputs.flatMap((i) => bytesField(1, i)),
    ...outputs.flatMap((o) => bytesField(2, o)),
    ...bytesField(3, name),
    ...bytesField(4, opType),
    ...attributes.flatMap((a) => bytesField(5, a)),
    ...bytesField(7, domain),
  ];
}

// GraphProto: node = 1, name = 2, input = 11, output = 12. ModelProto: ir_version = 1,
// producer_name = 2, graph = 7, opset_import = 8 (OperatorSetIdProto: domain = 1, version = 2).
function model(graph) {
  const opset = (domain, version) => bytesField(8, [...bytesField(1, domain), ...intField(2, version)]);
  return Uint8Array.from([
    ...intField(1, 10),
    ...bytesField(2, "attncheck examples/node"),
    ...bytesField(7, graph),
    ...opset("", 21),
    ...opset("com.microsoft", 1),
  ]);
}

/**
 * A model of one GroupQueryAttention node. Inputs (symbolic sizes): query (B, S, N·H), key and
 * value (B, S, Nkv·H), and when withPast past_key and past_value (B, Nkv, P, H), BNSH; then
 * seqlens_k (B) int32 and total_sequence_length (1) int32. Output: output (B, S, N·H) and, with
 * past, present_key / present_value (unused, but the op wants them named when past is given).
 *
 * withBias adds input 10, attention_bias (B, N, S, T), added to the scores after the soft-cap (the
 * kernel does not use it; tests/repro scripts do).
 *
 * Attributes: numHeads, kvNumHeads (required); scale (float; always given, so the op's default
 * 1/√H never applies); softcap (0 = off); localWindowSize (-1 = off; in ORT 1.30 W keys including
 * the current one); causal (1/0; omitted when undefined).
 */
export function groupQueryAttentionModel({ numHeads, kvNumHeads, scale, softcap = 0, localWindowSize = -1, causal, elemType, withPast, withBias = false }) {
  const attributes = [
    intAttribute("num_heads", numHeads),
    intAttribute("kv_num_heads", kvNumHeads),
    floatAttribute("scale", scale),
    floatAttribute("softcap", softcap),
    intAttribute("local_window_size", localWindowSize),
  ];
  if (causal !== undefined) attributes.push(intAttribute("causal", causal ? 1 : 0));
  const inputs = [
    valueInfo("query", elemType, ["B", "S", "NH"]),
    valueInfo("key", elemType, ["B", "S", "KH"]),
    valueInfo("value", elemType, ["B", "S", "KH"]),
  ];
  if (withPast) {
    inputs.push(valueInfo("past_key", elemType, ["B", kvNumHeads, "P", "H"]));
    inputs.push(valueInfo("past_value", elemType, ["B", kvNumHeads, "P", "H"]));
  }
  inputs.push(valueInfo("seqlens_k", DataType.INT32, ["B"]));
  inputs.push(valueInfo("total_sequence_length", DataType.INT32, [1]));
  if (withBias) inputs.push(valueInfo("attention_bias", elemType, ["B", numHeads, "S", "T"]));
  const outputs = [valueInfo("output", elemType, ["B", "S", "NH"])];
  const nodeOutputs = ["output"];
  if (withPast) {
    outputs.push(valueInfo("present_key", elemType, ["B", kvNumHeads, "T", "H"]));
    outputs.push(valueInfo("present_value", elemType, ["B", kvNumHeads, "T", "H"]));
    nodeOutputs.push("present_key", "present_value");
  }
  const gqa = node({
    inputs: ["query", "key", "value", withPast ? "past_key" : "", withPast ? "past_value" : "", "seqlens_k", "total_sequence_length",
             ...(withBias ? ["", "", "", "attention_bias"] : [])],  // 7 cos_cache, 8 sin_cache, 9 position_ids omitted
    outputs: nodeOutputs,
    name: "gqa",
    opType: "GroupQueryAttention",
    domain: "com.microsoft",
    attributes,
  });
  const graph = [
    ...bytesField(1, gqa),
    ...bytesField(2, "gqa_graph"),
    ...inputs.flatMap((i) => bytesField(11, i)),
    ...outputs.flatMap((o) => bytesField(12, o)),
  ];
  return model(graph);
}

/**
 * A model of the FP8 cache write as ONNX spells it: y = Div(x, scale) in float32, Cast(y, to =
 * fp8Type, saturate) (opset 19 and later: saturate 1 clamps overflow and ±inf to ±max, 0 gives
 * NaN for E4M3FN and ±inf for E5M2), then Cast back to float32, since onnxruntime-node has no FP8
 * tensor type to return the codes in: the value of each code, which names it (a NaN stands for
 * any NaN code). Inputs x (N) and scale (1), float32; output value (N), float32.
 */
export function castToFp8Model({ fp8Type, saturate }) {
  const div = node({ inputs: ["x", "scale"], outputs: ["y"], name: "div", opType: "Div", domain: "", attributes: [] });
  const cast = node({ inputs: ["y"], outputs: ["code"], name: "cast", opType: "Cast", domain: "",
                      attributes: [intAttribute("to", fp8Type), intAttribute("saturate", saturate ? 1 : 0)] });
  const back = node({ inputs: ["code"], outputs: ["value"], name: "back", opType: "Cast", domain: "",
                      attributes: [intAttribute("to", DataType.FLOAT)] });
  const graph = [
    ...[div, cast, back].flatMap((n) => bytesField(1, n)),
    ...bytesField(2, "cast_fp8_graph"),
    ...[valueInfo("x", DataType.FLOAT, ["N"]), valueInfo("scale", DataType.FLOAT, [1])].flatMap((i) => bytesField(11, i)),
    ...bytesField(12, valueInfo("value", DataType.FLOAT, ["N"])),
  ];
  return model(graph);
}

/**
 * A model of one Softmax node (opset 21, axis -1) over a row: input x (1, N) float32, output y
 * (1, N). ONNX Runtime's CPU provider computes it with MLAS (max subtraction, a vectorised exp).
 */
export function softmaxModel() {
  const sm = node({ inputs: ["x"], outputs: ["y"], name: "softmax", opType: "Softmax", domain: "", attributes: [intAttribute("axis", -1)] });
  const graph = [
    ...bytesField(1, sm),
    ...bytesField(2, "softmax_graph"),
    ...bytesField(11, valueInfo("x", DataType.FLOAT, [1, "N"])),
    ...bytesField(12, valueInfo("y", DataType.FLOAT, [1, "N"])),
  ];
  return model(graph);
}
