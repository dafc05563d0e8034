"""The ONNX folder of a paralib model (``paralib export --to onnx``): ``model.onnx``, a graph
from token ids to sentence vectors, and ``tokenizer.json``, the tokeniser that gives those ids
(:mod:`paralib.export.hf_tokenizer`), so that onnxruntime (in Python, in the browser with
onnxruntime-web, or anywhere else) encodes as ``paralib.load(model).encode`` does.

The graph is written with ``onnx.helper`` (a handful of standard operators, opset 17):

- inputs ``input_ids`` (int64, batch x tokens, right-padded with id 0) and ``attention_mask``
  (int64, batch x tokens, 1 for a token, 0 for padding), what ``tokenizer.json`` gives with
  its padding on;
- ``Gather`` of the table rows, times the mask, summed over the tokens and divided by the
  number of tokens (at least 1: a sentence with no tokens gives the zero vector);
- output ``sentence_embedding`` (float32, batch x dim).

With ``--quantize int8`` the table is an int8 initializer with one float32 scale per row, and
the graph gathers both and multiplies them. It takes the static models of
:mod:`paralib.export.static` (one averaging part over SP or WORD tokens): other tokens have no
``tokenizers`` form and other encoders are no mean of rows.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from paralib.export.static import check_static, static_table
from paralib.models.pretrained import SentenceEncoder

OPSET = 17
IR_VERSION = 8  # the ONNX IR of opset 17, read by onnxruntime 1.13 and later (and -web)
INPUTS = ("input_ids", "attention_mask")
OUTPUT = "sentence_embedding"


def graph(vectors: np.ndarray, int8: bool = False, name: str = "paralib"):
    """The ``onnx.ModelProto`` of the mean of ``vectors``' rows over the ids of each row of
    ``input_ids`` where ``attention_mask`` is 1 (rows stored as int8 with per-row scales when
    ``int8``)."""
    import torch
    from onnx import TensorProto, checker, helper, numpy_helper

    from paralib.models.quantized import quantize_rows

    nodes, inits = [], []
    if int8:
        q, scale = quantize_rows(torch.from_numpy(vectors))
        inits += [numpy_helper.from_array(q.numpy(), "table_int8"),
                  numpy_helper.from_array(scale.numpy()[:, None], "row_scale")]
        nodes += [helper.make_node("Gather", ["table_int8", "input_ids"], ["rows_int8"]),
                  helper.make_node("Cast", ["rows_int8"], ["rows_unscaled"],
                                   to=TensorProto.FLOAT),
                  helper.make_node("Gather", ["row_scale", "input_ids"], ["scales"]),
                  helper.make_node("Mul", ["rows_unscaled", "scales"], ["rows"])]
    else:
        inits.append(numpy_helper.from_array(np.ascontiguousarray(vectors, np.float32),
                                             "table"))
        nodes.append(helper.make_node("Gather", ["table", "input_ids"], ["rows"]))
    inits += [numpy_helper.from_array(np.array([1], np.int64), "token_axis"),
              numpy_helper.from_array(np.array([-1], np.int64), "last_axis"),
              numpy_helper.from_array(np.array(1.0, np.float32), "one")]
    nodes += [
        helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["mask", "last_axis"], ["mask3"]),
        helper.make_node("Mul", ["rows", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "token_axis"], ["total"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "token_axis"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "one"], ["divisor"]),
        helper.make_node("Div", ["total", "divisor"], [OUTPUT]),
    ]
    dim = int(vectors.shape[1])
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
         for n in INPUTS],
        [helper.make_tensor_value_info(OUTPUT, TensorProto.FLOAT, ["batch", dim])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET)],
                              ir_version=IR_VERSION, producer_name="paralib")
    checker.check_model(model)
    return model


def write_onnx(encoder: SentenceEncoder, folder: Path, where: str, int8: bool = False) -> str:
    """Write ``model.onnx``, ``tokenizer.json`` and ``config.json`` of ``encoder`` into
    ``folder``; returns the model card's note on how to run it."""
    import onnx

    check_static(encoder.model.config, where, "onnx")
    table = static_table(encoder.model)
    tok = table.tokenizer
    pad = tok.id_to_token(0)
    tok.enable_padding(pad_id=0, pad_token=pad)
    onnx.save_model(graph(table.vectors, int8, name=folder.name), str(folder / "model.onnx"))
    tok.save(str(folder / "tokenizer.json"))
    (folder / "config.json").write_text(json.dumps({
        "model_type": "paralib-onnx", "inputs": list(INPUTS), "output": OUTPUT,
        "hidden_dim": int(table.vectors.shape[1]), "pad_token_id": 0, "pooling": "mean",
        "max_tokens": table.max_tokens, "table": "int8, one scale per row" if int8 else
        "float32", "opset": OPSET}, indent=2) + "\n")
    return (f"`tokenizer.json` pads with id 0 and cuts at {table.max_tokens} tokens, as paralib "
            "does; `model.onnx` takes its `input_ids` and `attention_mask` (int64) and gives "
            f"`{OUTPUT}` (float32, batch x {table.vectors.shape[1]}), the mean of the token "
            "vectors" + (" (int8 rows times their float32 scales)" if int8 else "") + ".")
