#!/usr/bin/env python3
"""Times LiteRT and BlazeKit on the same machine in one run and compares them.

Usage: Benchmarks/compare_litert.py [--runs N] [--threads 1,2] [--bench PATH] [--models DIR] [--markdown]

For each model and thread count this times the original .tflite in the LiteRT interpreter
(ai_edge_litert, default XNNPACK delegate, Interpreter(model_path, num_threads=T), 10 warm-up
invokes, then N timed invokes on a random input) and, right after it, runs BlazeKit's harness

    blaze-bench models --threads T --runs N --json

which prints one JSON object per line per model, e.g.
    {"model":"pose_landmark_full","threads":1,"medianMs":12.3,"minMs":12.1,"p90Ms":12.9}

LiteRT and BlazeKit alternate model by model so both see the same machine conditions. If the
harness's `--help` mentions `--model`, the script asks it for one model at a time
(`... --json --model NAME`); otherwise it runs the whole suite each time and keeps the line for the
model just timed on LiteRT (slower, same numbers).

Prints a table (model, threads, LiteRT median, BlazeKit median, ratio BlazeKit/LiteRT, pass if the
ratio <= --max-ratio, 1.5 by default); --markdown prints it as Markdown for Benchmarks/RESULTS.md
with a machine line. --check makes the exit status 1 when a row fails or is missing.
Needs: ai-edge-litert, numpy (Tools/reference/setup-peer-venv.sh).
"""
import argparse
import datetime
import importlib.metadata
import json
import os
import platform
import re
import shlex
import subprocess
import sys
import time

import numpy as np

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, 'Tools', 'models'))
import builtin_models  # noqa: E402  (the model names and input ranges, from Tools/models/builtin_models.json)

MODELS = builtin_models.NAMES
WARMUP = 10


def litert_time(path, threads, runs):
    from ai_edge_litert.interpreter import Interpreter
    it = Interpreter(model_path=path, num_threads=threads)
    it.allocate_tensors()
    inp = it.get_input_details()[0]
    lo, hi = builtin_models.value_range(os.path.basename(path)[:-len('.tflite')])
    x = np.random.default_rng(0).uniform(lo, hi, size=inp['shape']).astype(np.float32)
    it.set_tensor(inp['index'], x)
    for _ in range(WARMUP):
        it.invoke()
    ts = np.empty(runs)
    for i in range(runs):
        t0 = time.perf_counter()
        it.invoke()
        ts[i] = time.perf_counter() - t0
    ts *= 1000.0
    return {'medianMs': float(np.median(ts)), 'minMs': float(ts.min()), 'p90Ms': float(np.percentile(ts, 90))}


class Bench:
    def __init__(self, cmd, timeout):
        self.cmd = cmd
        self.timeout = timeout
        self.per_model = False
        try:
            h = subprocess.run(cmd + ['models', '--help'], capture_output=True, text=True, timeout=60)
            self.per_model = re.search(r'--model(?![\w-])', h.stdout + h.stderr) is not None
        except (OSError, subprocess.TimeoutExpired):
            pass

    def run(self, model, threads, runs):
        """Returns the harness's JSON record for `model`, or an error string."""
        cmd = self.cmd + ['models', '--threads', str(threads), '--runs', str(runs), '--json']
        if self.per_model:
            cmd += ['--model', model]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True, timeout=self.timeout)
        except subprocess.TimeoutExpired:
            return f'timeout after {self.timeout}s: {shlex.join(cmd)}'
        except OSError as e:
            return f'cannot run {shlex.join(cmd)}: {e}'
        found = None
        for line in p.stdout.splitlines():
            line = line.strip()
            if not line.startswith('{'):
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get('model') == model and int(rec.get('threads', threads)) == threads:
                found = rec
        if p.returncode != 0:
            return f'exit {p.returncode}: {shlex.join(cmd)}: {p.stderr.strip()[-300:]}'
        if found is None or 'medianMs' not in found:
            return f'no JSON line for {model} threads={threads} from {shlex.join(cmd)}'
        return found


def machine_line():
    cpu = platform.processor() or platform.machine()
    sockets, cores = set(), {}
    try:
        with open('/proc/cpuinfo') as f:
            phys = '0'
            for line in f:
                k, _, v = line.partition(':')
                k, v = k.strip(), v.strip()
                if k == 'model name':
                    cpu = v
                elif k == 'physical id':
                    phys = v
                    sockets.add(v)
                elif k == 'cpu cores':
                    cores[phys] = int(v)
    except OSError:
        pass
    logical = os.cpu_count()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = logical
    phys_cores = sum(cores.values()) if cores else None
    c = f'{logical} logical CPUs' + (f' ({phys_cores} physical cores)' if phys_cores else '')
    if usable != logical:
        c += f', {usable} usable by this process'
    date = datetime.datetime.now().astimezone().strftime('%Y-%m-%d %H:%M %Z')
    return f'{cpu}, {c}, {platform.system()} {platform.release()}, {date}'


def fmt(v):
    return '—' if v is None else f'{v:.2f}'


def main():
    ap = argparse.ArgumentParser(description='LiteRT vs BlazeKit latency, same machine, one run.')
    ap.add_argument('--runs', type=int, default=100, help='timed invokes per model and thread count (default 100)')
    ap.add_argument('--threads', default='1,2', help='comma-separated thread counts (default 1,2)')
    ap.add_argument('--bench', default=os.path.join(REPO, '.build/release/blaze-bench'),
                    help='blaze-bench command (default .build/release/blaze-bench); may include arguments, '
                         'e.g. "sh /tmp/fake-bench.sh"')
    originals = os.path.join(REPO, '.originals')
    ap.add_argument('--models', default=originals if os.path.isdir(originals) else None,
                    help='directory of the original .tflite files (default .originals/, which Tools/models/convert-models.sh fills '
                         'with the sha256-checked originals)')
    ap.add_argument('--only', default=None, help='comma-separated subset of models')
    ap.add_argument('--max-ratio', type=float, default=1.5, help='pass if BlazeKit/LiteRT median <= this (1.5)')
    ap.add_argument('--no-bench', action='store_true', help='time LiteRT only')
    ap.add_argument('--timeout', type=float, default=600, help='seconds per blaze-bench call')
    ap.add_argument('--markdown', action='store_true', help='print a Markdown table for Benchmarks/RESULTS.md')
    ap.add_argument('--check', action='store_true', help='exit 1 if any row fails or is missing')
    a = ap.parse_args()

    if not a.models or not os.path.isdir(a.models):
        sys.exit('no models directory: pass --models DIR_OF_TFLITE')
    threads = [int(t) for t in a.threads.split(',') if t.strip()]
    models = MODELS if not a.only else [m.strip() for m in a.only.split(',')]
    for m in models:
        if m not in MODELS:
            sys.exit(f'--only: unknown model {m}; the models are {", ".join(MODELS)}')
    for m in models:
        if not os.path.isfile(os.path.join(a.models, m + '.tflite')):
            sys.exit(f'missing {m}.tflite in {a.models}')
    bench = None
    if not a.no_bench:
        cmd = shlex.split(a.bench)
        exe = cmd[0]
        if os.sep in exe and not os.path.exists(exe):
            sys.exit(f'blaze-bench not found at {exe}; build it with `swift build -c release --product '
                     f'blaze-bench`, pass --bench PATH, or use --no-bench')
        bench = Bench(cmd, a.timeout)
        how = 'one model per call (--model)' if bench.per_model else 'whole suite per call, one line kept'
        print(f'# blaze-bench: {shlex.join(cmd)} ({how})', file=sys.stderr)

    rows = []
    for t in threads:
        for m in models:
            try:
                lr = litert_time(os.path.join(a.models, m + '.tflite'), t, a.runs)
            except (RuntimeError, ValueError) as e:
                # face_landmark_with_attention uses MediaPipe's custom operators, which LiteRT does not have.
                print(f'# {m} threads={t}: LiteRT cannot run it: {str(e).splitlines()[0]}', file=sys.stderr, flush=True)
                rows.append((m, t, None, None, None, None))
                continue
            bk = bench.run(m, t, a.runs) if bench else None
            err = bk if isinstance(bk, str) else None
            if err:
                print(f'# {m} threads={t}: {err}', file=sys.stderr)
                bk = None
            ratio = bk['medianMs'] / lr['medianMs'] if bk else None
            ok = None if ratio is None else ratio <= a.max_ratio
            rows.append((m, t, lr, bk, ratio, ok))
            print(f'# {m} threads={t}: litert {lr["medianMs"]:.2f} ms'
                  + (f', blazekit {bk["medianMs"]:.2f} ms' if bk else ''), file=sys.stderr, flush=True)

    status = lambda ok: 'n/a' if ok is None else ('pass' if ok else 'FAIL')
    if a.markdown:
        print(f'Machine: {machine_line()}  ')
        print(f'LiteRT: ai-edge-litert {importlib.metadata.version("ai-edge-litert")} (XNNPACK, '
              f'Interpreter(num_threads=T)); {WARMUP} warm-up + {a.runs} timed invokes, random input; '
              f'pass = BlazeKit/LiteRT median ≤ {a.max_ratio}\n')
        print('| model | threads | LiteRT median ms (min / p90) | BlazeKit median ms (min / p90) | BlazeKit/LiteRT | ≤ '
              f'{a.max_ratio} |')
        print('|---|---:|---:|---:|---:|:---:|')
        for m, t, lr, bk, ratio, ok in rows:
            b = '—' if not bk else f'{bk["medianMs"]:.2f} ({fmt(bk.get("minMs"))} / {fmt(bk.get("p90Ms"))})'
            r = '— (LiteRT cannot run it)' if not lr else f'{lr["medianMs"]:.2f} ({lr["minMs"]:.2f} / {lr["p90Ms"]:.2f})'
            print(f'| {m} | {t} | {r} | {b} | '
                  f'{"—" if ratio is None else f"{ratio:.2f}"} | {status(ok)} |')
    else:
        print(f'{"model":20s} {"threads":>7s} {"LiteRT ms":>10s} {"BlazeKit ms":>11s} {"ratio":>6s}  result')
        for m, t, lr, bk, ratio, ok in rows:
            print(f'{m:20s} {t:7d} {fmt(lr["medianMs"] if lr else None):>10s} {fmt(bk["medianMs"] if bk else None):>11s} '
                  f'{"—" if ratio is None else f"{ratio:.2f}":>6s}  {status(ok)}')
        print(f'(medians of {a.runs} runs; pass = ratio <= {a.max_ratio}; {machine_line()})')
    if a.check and any(ok is not True for *_, ok in rows):
        sys.exit(1)


if __name__ == '__main__':
    main()
