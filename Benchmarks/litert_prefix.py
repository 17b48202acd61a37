#!/usr/bin/env python3
"""Where LiteRT's time goes: the latency of each prefix of a model's op list, in LiteRT 2.3.0 (XNNPACK).

Usage: Benchmarks/litert_prefix.py MODEL [--threads T] [--runs N] [--every K] [--models DIR]

For each cut (every K-th op that is not a DEQUANTIZE), the original .tflite is rewritten with the ops after the cut
removed and the cut op's first output as the model's output, and timed: 5 warm-up invokes, then N rounds in which
every cut is invoked once (so all cuts see the same machine), keeping each cut's fastest invoke. Prints, per cut,
the op index, kind, output shape, the prefix's time and its difference from the previous cut's.

Compare with `blaze-bench models --model MODEL --per-layer --top-nodes 400`, whose regions (each at its best of
20 runs) summed in node order give BlazeKit's prefix times. LiteRT's delegate drops ops whose outputs nothing
reads, so a cut right after a side branch (a max pool beside a convolution) can be faster than the cut before it;
differences of a few hundredths of a millisecond are noise on a loaded host.
Needs: ai-edge-litert, numpy, flatbuffers (Tools/reference/setup-peer-venv.sh).
"""
import argparse
import os
import sys
import tempfile
import time

import flatbuffers
import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'Tools', 'models'))
import builtin_models  # noqa: E402  (the model names and input ranges)


def main():
    ap = argparse.ArgumentParser(description="LiteRT latency of each prefix of a model's op list.")
    ap.add_argument('model', choices=builtin_models.NAMES)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--runs', type=int, default=30, help='rounds over all cuts; each cut keeps its fastest (30)')
    ap.add_argument('--every', type=int, default=1, help='time every K-th op (1); the last op is always timed')
    ap.add_argument('--models', default=os.path.join(REPO, '.originals'),
                    help='directory of the original .tflite files (.originals/, filled by Tools/models/convert-models.sh)')
    a = ap.parse_args()
    from ai_edge_litert import schema_py_generated as schema
    from ai_edge_litert.interpreter import Interpreter

    path = os.path.join(a.models, a.model + '.tflite')
    if not os.path.isfile(path):
        sys.exit(f'missing {path}: run Tools/models/convert-models.sh or pass --models DIR')
    buf = open(path, 'rb').read()
    model = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(buf, 0))
    graph = model.subgraphs[0]
    names = {v: k for k, v in vars(schema.BuiltinOperator).items() if not k.startswith('_')}

    def kind(op):
        code = model.operatorCodes[op.opcodeIndex]
        return names.get(max(code.builtinCode, code.deprecatedBuiltinCode), '?')

    cuts = [i for i, op in enumerate(graph.operators) if kind(op) != 'DEQUANTIZE']
    cuts = sorted(set(cuts[::max(1, a.every)] + cuts[-1:]))
    lo, hi = builtin_models.value_range(a.model)
    interpreters = {}
    with tempfile.TemporaryDirectory() as tmp:
        for c in cuts:
            cut = schema.ModelT.InitFromObj(schema.Model.GetRootAsModel(buf, 0))
            g = cut.subgraphs[0]
            g.operators = g.operators[:c + 1]
            g.outputs = [g.operators[c].outputs[0]]
            b = flatbuffers.Builder(1024)
            b.Finish(cut.Pack(b), file_identifier=b'TFL3')
            cut_path = os.path.join(tmp, f'{c}.tflite')
            with open(cut_path, 'wb') as f:
                f.write(b.Output())
            try:
                it = Interpreter(model_path=cut_path, num_threads=a.threads)
                it.allocate_tensors()
            except (RuntimeError, ValueError) as e:
                # face_landmark_with_attention uses MediaPipe's custom operators, which LiteRT does not have.
                sys.exit(f'{a.model}: LiteRT cannot run the prefix ending at op {c}: {str(e).splitlines()[0]}')
            inp = it.get_input_details()[0]
            it.set_tensor(inp['index'], np.random.default_rng(0).uniform(lo, hi, size=inp['shape']).astype(np.float32))
            for _ in range(5):
                it.invoke()
            interpreters[c] = it
        best = dict.fromkeys(cuts, float('inf'))
        for _ in range(a.runs):
            for c in cuts:
                t0 = time.perf_counter()
                interpreters[c].invoke()
                best[c] = min(best[c], time.perf_counter() - t0)
    print(f'# {a.model}, {a.threads} thread(s), best of {a.runs} invokes per prefix, ms')
    previous = 0.0
    for c in cuts:
        out = graph.tensors[graph.operators[c].outputs[0]]
        shape = 'x'.join(str(int(d)) for d in out.shape)
        print(f'{c:4d} {kind(graph.operators[c]):20s} {shape:14s} {best[c] * 1000:8.3f}  {(best[c] - previous) * 1000:+8.3f}')
        previous = best[c]


if __name__ == '__main__':
    main()
