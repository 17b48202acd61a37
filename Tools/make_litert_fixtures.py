#!/usr/bin/env python3
"""Generates LiteRT reference fixtures for BlazeKit's runtime parity tests.

Usage: Tools/make_litert_fixtures.py [--models DIR] [--images DIR] [--references DIR] [--out DIR]

For each of the seven original MediaPipe networks this runs the original .tflite in the LiteRT
interpreter (ai_edge_litert, default XNNPACK delegate, num_threads=1) on two inputs:

  random  a deterministic xorshift32 input that Swift regenerates exactly (nothing stored);
  photo   a crop of a real photo, stored as raw 8-bit RGB (<model>.photo.rgb, H*W*3 bytes).

and writes every output tensor, in the interpreter's output order, as raw little-endian float32
(<model>.<input>.<index>.f32) plus manifest.json describing inputs, outputs, shapes and sources.

Needs: ai-edge-litert, numpy, pillow (see Tools/setup-peer-venv.sh).
"""
import argparse
import hashlib
import importlib.metadata
import json
import os
import sys

import numpy as np
from PIL import Image
from ai_edge_litert.interpreter import Interpreter, OpResolverType

import builtin_models

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SEED = 0x9E3779B9

# network family -> photo recipe; the models, their SHA-256 and the value ranges of their float inputs
# come from Tools/builtin_models.json.
#   recipe kinds: 'letterbox' (whole photo padded to a centred square), 'person' (square around the
#   MediaPipe pose landmarks), 'hand' (tight square around one hand's MediaPipe landmarks).
RECIPES = {
    'pose_detection': ('letterbox', 'coco_000000000785'),
    'pose_landmark':  ('person',    'coco_000000000785'),
    'palm_detection': ('letterbox', 'onehand10k_1402'),
    'hand_landmark':  ('hand',      'onehand10k_1402'),
}


def recipe(model):
    """The photo recipe of `model`, by the family its name starts with."""
    return next(r for family, r in RECIPES.items() if model.startswith(family))
PERSON_MARGIN = 1.25   # square side = margin * max(width, height) of the landmark bounding box
HAND_MARGIN = 1.15

GENERATOR = {
    'name': 'xorshift32',
    'seed': '0x9E3779B9',
    'seedDecimal': SEED,
    'reset': 'state = seed at the start of every case (each model\'s random input starts from the seed)',
    'step': 'x ^= (x << 13) mod 2^32; x ^= x >> 17; x ^= (x << 5) mod 2^32; output x '
            '(the step runs before the first output, so the first output is step(seed))',
    'order': 'one output per input element, elements in NHWC row-major order (batch 1)',
    'value': 'u = Double(x >> 8) / 16777216.0 (float64, u in [0, 1)); '
             'value = Float32(lo + (hi - lo) * u) with lo, hi, u as float64, rounded once to float32',
    'note': 'u has 24 significant bits, so for the ranges used here ([0,1] and [-1,1]) the float64 '
            'result is exactly representable and the cast to float32 is exact',
}

PHOTO_FORMULA = {
    'storage': 'raw 8-bit RGB, H*W*3 bytes, row-major, channel order R,G,B (NHWC, batch 1)',
    'value': 'value = lo + (hi - lo) * (Float32(p) / Float32(255)), every operation in float32: '
             'q = Float32(p) / Float32(255) (rounded), t = Float32(hi - lo) * q (rounded), '
             'value = Float32(lo) + t (rounded); no fused multiply-add',
    'numpy': 'np.float32(lo) + np.float32(hi - lo) * (p.astype(np.float32) / np.float32(255))',
    'crop': 'cropBox = [x0, y0, x1, y1] in source-image pixels (x1, y1 exclusive), may extend past the '
            'image; pixels outside the image are black (0,0,0). The crop is resized to the model input '
            'size with PIL Image.resize(..., Image.BILINEAR) (PIL\'s bilinear filter, which widens its '
            'support when downscaling), then stored.',
}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def xorshift32_input(shape, lo, hi):
    n = int(np.prod(shape))
    out = np.empty(n, dtype=np.float64)
    x = SEED
    span = hi - lo
    for i in range(n):
        x ^= (x << 13) & 0xFFFFFFFF
        x ^= x >> 17
        x ^= (x << 5) & 0xFFFFFFFF
        out[i] = lo + span * ((x >> 8) / 16777216.0)
    return out.astype(np.float32).reshape(shape)


def photo_to_float(pixels, lo, hi):
    q = pixels.astype(np.float32) / np.float32(255)
    return np.float32(lo) + np.float32(hi - lo) * q


def landmark_box(points, width, height):
    xs = [p[0] * width for p in points]
    ys = [p[1] * height for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def square_box(bbox, margin, width, height):
    """Integer square around bbox (side = margin * longest side), shifted to stay inside the image
    when it fits."""
    x0, y0, x1, y1 = bbox
    side = int(round(max(x1 - x0, y1 - y0) * margin))
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    bx, by = int(round(cx - side / 2)), int(round(cy - side / 2))
    if side <= width:
        bx = min(max(bx, 0), width - side)
    if side <= height:
        by = min(max(by, 0), height - side)
    return [bx, by, bx + side, by + side]


def photo_crop(kind, stem, images, refs):
    img = Image.open(os.path.join(images, stem + '.png')).convert('RGB')
    W, H = img.size
    src = {'image': stem + '.png', 'imageSize': [W, H], 'kind': kind}
    if kind == 'letterbox':
        S = max(W, H)
        px, py = (S - W) // 2, (S - H) // 2
        box = [-px, -py, S - px, S - py]
        src['how'] = 'whole photo, centred in a black square of side max(W, H) (letterbox)'
    else:
        ref = json.load(open(os.path.join(refs, stem + '.json')))
        if kind == 'person':
            lms = ref['poses'][0]['landmarks']
            box = square_box(landmark_box(lms, W, H), PERSON_MARGIN, W, H)
            src['how'] = (f'square of side {PERSON_MARGIN} x the longest side of the bounding box of the '
                          f'33 MediaPipe pose landmarks (poses[0], full model), shifted inside the image')
        else:
            hand = max(ref['hands_full'], key=lambda h: h['handedness']['score'])
            box = square_box(landmark_box(hand['landmarks'], W, H), HAND_MARGIN, W, H)
            src['how'] = (f'square of side {HAND_MARGIN} x the longest side of the bounding box of the 21 '
                          f'MediaPipe hand landmarks (hands_full, {hand["handedness"]["categoryName"]} hand), '
                          f'shifted inside the image; not rotated')
    src['cropBox'] = box
    return img.crop(tuple(box)), src


def run(model_path, x, resolver=None):
    kw = {} if resolver is None else {'experimental_op_resolver_type': resolver}
    it = Interpreter(model_path=model_path, num_threads=1, **kw)
    it.allocate_tensors()
    inp = it.get_input_details()
    assert len(inp) == 1, model_path
    it.set_tensor(inp[0]['index'], x)
    it.invoke()
    return [(d, np.array(it.get_tensor(d['index']), dtype=np.float32)) for d in it.get_output_details()]


def default_dir(rel):
    return os.path.normpath(os.path.join(REPO, rel))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--models', default=default_dir('../shared/models'))
    ap.add_argument('--images', default=default_dir('../shared/testdata/images'))
    ap.add_argument('--references', default=None,
                    help='MediaPipe reference JSON dir (default: <images>/../reference)')
    ap.add_argument('--out', default=os.path.join(REPO, 'Tests/BlazeRuntimeTests/Fixtures/litert'))
    ap.add_argument('--no-builtin-check', action='store_true',
                    help='skip re-running without XNNPACK to report XNNPACK-vs-builtin differences')
    a = ap.parse_args()
    refs = a.references or os.path.join(os.path.dirname(os.path.abspath(a.images)), 'reference')
    for d in (a.models, a.images, refs):
        if not os.path.isdir(d):
            sys.exit(f'missing directory: {d}')
    os.makedirs(a.out, exist_ok=True)

    manifest = {
        'description': 'LiteRT reference outputs of the original MediaPipe .tflite models, for BlazeKit '
                       'runtime parity tests. Tolerance: |blaze - litert| <= 1e-4 * max(1, maxAbs) per output.',
        'producer': 'Tools/make_litert_fixtures.py',
        'litert': {'package': 'ai-edge-litert', 'version': importlib.metadata.version('ai-edge-litert'),
                   'interpreter': 'ai_edge_litert.interpreter.Interpreter(model_path, num_threads=1), '
                                  'default op resolver (XNNPACK delegate applied)'},
        'numpy': np.__version__, 'pillow': Image.__version__ if hasattr(Image, '__version__') else
        importlib.metadata.version('pillow'),
        'outputFormat': 'raw little-endian float32, the tensor in row-major order of its shape',
        'generator': GENERATOR,
        'photoInput': PHOTO_FORMULA,
        'models': {},
        'cases': [],
    }
    written = []
    rows = []
    for model in builtin_models.NAMES:
        (lo, hi), (kind, stem) = builtin_models.value_range(model), recipe(model)
        path = os.path.join(a.models, model + '.tflite')
        digest = sha256_file(path)
        if digest != builtin_models.sha256(model):
            sys.exit(f'{path} has sha256 {digest}, expected {builtin_models.sha256(model)} (Tools/builtin_models.json)')
        manifest['models'][model] = {'file': model + '.tflite', 'sha256': digest, 'bytes': os.path.getsize(path)}
        probe = Interpreter(model_path=path, num_threads=1)
        probe.allocate_tensors()
        ind = probe.get_input_details()[0]
        shape = [int(s) for s in ind['shape']]
        _, h, w, c = shape
        del probe

        inputs = {}
        inputs['random'] = (xorshift32_input(shape, lo, hi), None, None)
        crop, src = photo_crop(kind, stem, a.images, refs)
        pix = np.asarray(crop.resize((w, h), Image.BILINEAR), dtype=np.uint8)
        assert pix.shape == (h, w, c)
        rgb_name = f'{model}.photo.rgb'
        with open(os.path.join(a.out, rgb_name), 'wb') as f:
            f.write(pix.tobytes())
        written.append(rgb_name)
        src['resizedTo'] = [w, h]
        inputs['photo'] = (photo_to_float(pix, lo, hi).reshape(shape), rgb_name, src)

        for name, (x, rgb, src) in inputs.items():
            assert x.dtype == np.float32
            outs = run(path, x)
            ref_outs = None if a.no_builtin_check else run(
                path, x, OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
            case = {'model': model, 'input': name, 'inputShape': shape, 'valueRange': [lo, hi],
                    'inputName': ind['name'],
                    'inputSha256': hashlib.sha256(x.astype('<f4').tobytes()).hexdigest(),
                    'inputFirstValues': [float(v) for v in x.reshape(-1)[:4]]}
            if rgb:
                case['inputFile'] = rgb
                case['photoSource'] = src
            case['outputs'] = []
            for i, (d, y) in enumerate(outs):
                fn = f'{model}.{name}.{i}.f32'
                with open(os.path.join(a.out, fn), 'wb') as f:
                    f.write(y.astype('<f4').tobytes())
                written.append(fn)
                o = {'index': i, 'name': d['name'], 'tensorIndex': int(d['index']),
                     'shape': [int(s) for s in y.shape], 'file': fn,
                     'maxAbs': float(np.max(np.abs(y)))}
                if ref_outs is not None:
                    o['builtinMaxAbsDiff'] = float(np.max(np.abs(ref_outs[i][1] - y)))
                case['outputs'].append(o)
                rows.append((model, name, i, d['name'], 'x'.join(map(str, y.shape)), o['maxAbs'],
                             o.get('builtinMaxAbsDiff'), sanity(model, i, y)))
            manifest['cases'].append(case)
    manifest['builtinMaxAbsDiffNote'] = (
        'builtinMaxAbsDiff = max |XNNPACK output - output of the same interpreter built with '
        'OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES| (informational only; fixtures are the XNNPACK outputs)')
    with open(os.path.join(a.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
        f.write('\n')
    written.append('manifest.json')

    # stale files from older runs
    for fn in sorted(os.listdir(a.out)):
        if fn not in written and (fn.endswith('.f32') or fn.endswith('.rgb')):
            print('note: stale file not produced by this run:', fn)

    print(f'LiteRT {manifest["litert"]["version"]}, fixtures in {a.out}')
    print(f'{"model":20s} {"input":6s} {"#":>1s} {"name":10s} {"shape":12s} {"maxAbs":>10s} '
          f'{"xnn-vs-builtin":>14s}  sanity')
    for m, n, i, nm, sh, mx, dd, san in rows:
        dds = '-' if dd is None else f'{dd:.2e}'
        print(f'{m:20s} {n:6s} {i:1d} {nm:10s} {sh:12s} {mx:10.4g} {dds:>14s}  {san}')
    for c in manifest['cases']:
        if c['input'] == 'photo':
            s = c['photoSource']
            print(f'photo {c["model"]:20s} {s["image"]} {s["imageSize"]} crop {s["cropBox"]} -> {s["resizedTo"]}')
    total = sum(os.path.getsize(os.path.join(a.out, f)) for f in written)
    print(f'{len(written)} files, total {total} bytes ({total / 2**20:.2f} MiB)')


def sanity(model, i, y):
    """A human-readable hint that the photo/random output is plausible."""
    sig = lambda v: 1 / (1 + np.exp(-np.clip(v, -80, 80)))
    if 'detection' in model and i == 1:
        return f'max score {sig(y.max()):.3f}'
    if model.startswith('hand_landmark') and i in (1, 2):
        return ('presence' if i == 1 else 'handedness (P(right))') + f' {float(y.reshape(-1)[0]):.3f}'
    if model.startswith('pose_landmark') and i == 1:
        return f'presence {float(y.reshape(-1)[0]):.3g} (already a probability: the graph ends in LOGISTIC)'
    return ''


if __name__ == '__main__':
    main()
