#!/usr/bin/env python3
"""Makes a JPEG / EXIF-orientation test set from a folder of PNG photos, for measurement outside the
test suite (do not commit its output: the photos belong to their datasets).

Usage (any Python with Pillow and numpy; `jpegtran` from libjpeg-turbo-progs for the lossless variant):
  python Tools/reference/make_media_testset.py PHOTO_DIR OUT_DIR [--quality 92] [--no-lossless]
e.g.
  .venv-peer/bin/python Tools/reference/make_media_testset.py PHOTOS_DIR /tmp/media/set

Writes, for every PHOTO_DIR/<stem>.png (converted to RGB; ICC profiles are not carried over):
  OUT_DIR/jpeg/<stem>.jpg           the photo as a JPEG, Pillow quality 92, default 4:2:0 subsampling,
                                    no EXIF.
  OUT_DIR/exif/<stem>.o<N>.jpg      N = 1…8: the stored pixels are the upright photo transformed with the
                                    inverse of EXIF orientation N, re-encoded by Pillow (quality 92) with
                                    EXIF tag 0x0112 = N, so that a viewer that honours the tag shows the
                                    upright photo. EXIF semantics (displayed from stored): 1 as is,
                                    2 mirror horizontal, 3 rotate 180, 4 mirror vertical, 5 transpose,
                                    6 rotate 90° clockwise, 7 transverse, 8 rotate 90° counter-clockwise.
                                    Re-encoding rotated pixels adds encoder noise that differs from
                                    jpeg/<stem>.jpg's, so these files measure orientation handling only up
                                    to JPEG noise.
  OUT_DIR/exif_lossless/<stem>.o<N>.jpg
                                    the same orientation set made without re-encoding: the quality-92
                                    upright JPEG (same pixels and settings as jpeg/<stem>.jpg, plus the
                                    EXIF tag) transformed in the DCT domain by `jpegtran -perfect -copy all`
                                    where the image size permits that transform exactly (e.g. rotations by
                                    90° need the relevant side to be a multiple of the 16-pixel MCU);
                                    otherwise a copy of exif/<stem>.o<N>.jpg. Displayed with the tag
                                    applied, a lossless file decodes (nearly: chroma-upsampling rounding)
                                    to the same pixels as jpeg/<stem>.jpg.
  OUT_DIR/manifest.json             settings, per photo and orientation: file, how it was made
                                    ("jpegtran -perfect …", "pillow re-encode", or "fallback: re-encoded
                                    (…)"), and the check below.
Check: every exif/ and exif_lossless/ file is opened with PIL.ImageOps.exif_transpose and compared with
the upright PNG pixels and with the decoded jpeg/<stem>.jpg (mean and max absolute difference in 8-bit
levels); the size must equal the upright size and the mean difference to the PNG must stay below
--max-mean-diff (default 4 levels; a wrong orientation gives tens of levels). The script exits 1 if any
file fails and prints a summary.
"""
import argparse, glob, json, os, shutil, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageOps

ORIENTATION_TAG = 0x0112
# Pillow transpose that turns the stored pixels into the displayed (upright) ones, per EXIF orientation
# (the same table as PIL.ImageOps.exif_transpose).
DISPLAY_FROM_STORED = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_270,   # PIL rotates counter-clockwise: ROTATE_270 = 90° clockwise
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_90,    # 90° counter-clockwise
}
# ... and its inverse, which makes the stored pixels from the upright photo.
STORED_FROM_UPRIGHT = {
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,    # stored = upright rotated 90° counter-clockwise
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,   # stored = upright rotated 90° clockwise
}
# jpegtran operation with the same effect as STORED_FROM_UPRIGHT (jpegtran -rotate is clockwise).
JPEGTRAN_STORED_FROM_UPRIGHT = {
    2: ['-flip', 'horizontal'],
    3: ['-rotate', '180'],
    4: ['-flip', 'vertical'],
    5: ['-transpose'],
    6: ['-rotate', '270'],
    7: ['-transverse'],
    8: ['-rotate', '90'],
}


def exif_bytes(orientation):
    exif = Image.Exif()
    exif[ORIENTATION_TAG] = orientation
    return exif.tobytes()


def save_jpeg(image, path, quality, orientation=None):
    kw = {'quality': quality}   # Pillow default subsampling for quality < 95 … : 4:2:0
    if orientation is not None:
        kw['exif'] = exif_bytes(orientation)
    image.save(path, 'JPEG', **kw)


def displayed(path):
    with Image.open(path) as im:
        tag = im.getexif().get(ORIENTATION_TAG)
        return ImageOps.exif_transpose(im).convert('RGB'), tag


def diff(a, b):
    if a.size != b.size:
        return None
    d = np.abs(np.asarray(a, dtype=np.int16) - np.asarray(b, dtype=np.int16))
    return {'mean': round(float(d.mean()), 4), 'max': int(d.max())}


def check(path, orientation, upright_png, upright_jpeg, max_mean):
    shown, tag = displayed(path)
    vs_png, vs_jpeg = diff(shown, upright_png), diff(shown, upright_jpeg)
    ok = tag == orientation and vs_png is not None and vs_png['mean'] <= max_mean
    return {'tag': tag, 'displayedSize': list(shown.size), 'vsPNG': vs_png, 'vsJPEG': vs_jpeg, 'ok': ok}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('photos', help='folder of PNG photos')
    ap.add_argument('out', help='output folder')
    ap.add_argument('--quality', type=int, default=92)
    ap.add_argument('--no-lossless', action='store_true', help='skip exif_lossless/')
    ap.add_argument('--max-mean-diff', type=float, default=4.0)
    a = ap.parse_args()

    jpegtran = None if a.no_lossless else shutil.which('jpegtran')
    if not a.no_lossless and jpegtran is None:
        print('jpegtran not found (apt-get install libjpeg-turbo-progs): exif_lossless/ will hold '
              're-encoded copies', file=sys.stderr)
    for d in ('jpeg', 'exif') + (() if a.no_lossless else ('exif_lossless',)):
        os.makedirs(os.path.join(a.out, d), exist_ok=True)

    manifest = {'source': os.path.abspath(a.photos), 'quality': a.quality, 'subsampling': '4:2:0 (Pillow default)',
                'encoder': f'Pillow {Image.__version__}',
                'jpegtran': (subprocess.run([jpegtran, '-version'], capture_output=True, text=True).stderr.strip()
                             if jpegtran else None),
                'exifSemantics': {'1': 'as stored', '2': 'mirror horizontal', '3': 'rotate 180',
                                  '4': 'mirror vertical', '5': 'transpose', '6': 'rotate 90 clockwise',
                                  '7': 'transverse', '8': 'rotate 90 counter-clockwise'},
                'note': ('exif_lossless files made by jpegtran decode (orientation applied) to jpeg/<stem>.jpg '
                         'within +-3 levels (mean ~0.1): libjpeg-turbo fancy chroma upsampling and the IDCT '
                         'round differently after a horizontal flip or a transpose; vertical flips are exact'),
                'images': {}}
    failures = 0
    lossless_count = {n: 0 for n in range(1, 9)}
    photos = sorted(glob.glob(os.path.join(a.photos, '*.png')))
    with tempfile.TemporaryDirectory() as tmp:
        for photo in photos:
            stem = os.path.splitext(os.path.basename(photo))[0]
            with Image.open(photo) as im:
                upright = im.convert('RGB')
            jpeg_path = os.path.join(a.out, 'jpeg', f'{stem}.jpg')
            save_jpeg(upright, jpeg_path, a.quality)
            with Image.open(jpeg_path) as im:
                upright_jpeg = im.convert('RGB')
            entry = {'width': upright.width, 'height': upright.height,
                     'jpeg': os.path.relpath(jpeg_path, a.out),
                     'jpegVsPNG': diff(upright_jpeg, upright), 'exif': {}, 'exif_lossless': {}}
            for n in range(1, 9):
                stored = upright if n == 1 else upright.transpose(STORED_FROM_UPRIGHT[n])
                path = os.path.join(a.out, 'exif', f'{stem}.o{n}.jpg')
                save_jpeg(stored, path, a.quality, orientation=n)
                c = check(path, n, upright, upright_jpeg, a.max_mean_diff)
                entry['exif'][str(n)] = {'file': os.path.relpath(path, a.out), 'method': 'pillow re-encode', 'check': c}
                failures += not c['ok']
                if a.no_lossless:
                    continue
                lpath = os.path.join(a.out, 'exif_lossless', f'{stem}.o{n}.jpg')
                # The upright quality-92 JPEG with tag n: same pixels and settings as jpeg/<stem>.jpg.
                src = os.path.join(tmp, f'{stem}.o{n}.upright.jpg')
                save_jpeg(upright, src, a.quality, orientation=n)
                method = None
                if n == 1:
                    shutil.copyfile(src, lpath)
                    method = 'no transform (upright quality-92 JPEG with tag 1)'
                elif jpegtran:
                    cmd = [jpegtran, '-perfect', '-copy', 'all'] + JPEGTRAN_STORED_FROM_UPRIGHT[n] + ['-outfile', lpath, src]
                    r = subprocess.run(cmd, capture_output=True, text=True)
                    if r.returncode == 0:
                        method = 'jpegtran -perfect -copy all ' + ' '.join(JPEGTRAN_STORED_FROM_UPRIGHT[n])
                    else:
                        reason = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f'exit {r.returncode}'
                        if os.path.exists(lpath):
                            os.remove(lpath)
                if method is None:
                    shutil.copyfile(path, lpath)
                    method = ('fallback: re-encoded (' + (f'jpegtran: {reason}' if jpegtran else 'no jpegtran') + ')')
                lossless = not method.startswith('fallback')
                lossless_count[n] += lossless
                c = check(lpath, n, upright, upright_jpeg, a.max_mean_diff)
                entry['exif_lossless'][str(n)] = {'file': os.path.relpath(lpath, a.out), 'method': method,
                                                  'lossless': lossless, 'check': c}
                failures += not c['ok']
            manifest['images'][stem] = entry
            ex = entry['exif']; lo = entry['exif_lossless']
            worst = max(ex[k]['check']['vsPNG']['mean'] for k in ex)
            line = f'{stem} {upright.width}x{upright.height}: jpeg vs png mean {entry["jpegVsPNG"]["mean"]:.2f}; exif worst mean vs png {worst:.2f}'
            if lo:
                lossless_list = [k for k in lo if lo[k]['lossless'] and k != '1']
                worst_l = max(lo[k]['check']['vsJPEG']['mean'] for k in lo)
                line += f'; lossless o{",".join(lossless_list) or "-"}; exif_lossless worst mean vs jpeg {worst_l:.3f}'
            print(line)
    manifest['summary'] = {'photos': len(photos), 'failedChecks': failures,
                           'losslessPerOrientation': {str(n): lossless_count[n] for n in range(2, 9)} if not a.no_lossless else None}
    with open(os.path.join(a.out, 'manifest.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
    print(f'{len(photos)} photos; failed checks: {failures}; lossless per orientation: '
          + ' '.join(f'o{n}={lossless_count[n]}' for n in range(2, 9)))
    sys.exit(1 if failures else 0)


if __name__ == '__main__':
    main()
