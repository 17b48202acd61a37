#!/usr/bin/env python3
"""Writes the JPEG fixtures of BlazeImage's tests into Tests/BlazeImageTests/Fixtures/jpeg.

Run by developers (not CI) with a venv that has Pillow and numpy (cv2 optional, used only as a
cross-check):
    /tmp/peer-venv/bin/python Tools/make_jpeg_fixtures.py

Sources: crops of Benchmarks/photos/mpii_052475643.png (a real photo). Encoders: Pillow for most files,
the system's `cjpeg` (libjpeg-turbo-progs) for restart markers and arithmetic coding, and the system's
TurboJPEG library through ctypes for the YCCK and 4:4:0 files (Pillow cannot write those).

What it writes (each `<name>.jpg` with `<name>.png`, the pixels Pillow decodes from it:
`Image.open(jpg).convert("RGB")`, stored losslessly; BlazeImage must reproduce them byte for byte):
* photo_420, photo_422, photo_444, photo_440, photo_progressive, photo_restart, photo_arithmetic,
  photo_gray, photo_cmyk_adobe (Pillow's CMYK: Adobe APP14, inverted samples), photo_cmyk_noadobe (the
  same file with APP14 removed; Pillow, like OpenCV, still reads the samples as inverted), photo_ycck
  (Adobe transform 2): 77x53 crops, deliberately not a multiple of the MCU size.
* exif_photo_<k>, k = 1...8: ONE encoded 37x23 JPEG with an EXIF APP1 segment inserted holding
  Orientation = k (alternately little- and big-endian TIFF, with Make/Model/XResolution entries around
  it), and `<name>.png` = Pillow's `ImageOps.exif_transpose` of Pillow's decode, i.e. the upright image
  as Pillow displays it. Since the compressed data is identical, Image.oriented() of our decode must
  equal these pixels exactly.
* exif_blocks_<k>, k = 1...8: an upright 48x32 image U made of flat 8x8 blocks, physically stored as
  the inverse of orientation k's display transform (Pillow `Image.transpose`), encoded at quality 100
  4:4:4 with EXIF Orientation = k (Pillow's own EXIF writer). With flat blocks aligned to the 8x8 DCT
  grid and no chroma subsampling every block decodes to the same colour wherever it sits, so
  displaying each file must give exactly the decode of exif_blocks_1 (exif_blocks_1.png); the script
  asserts this through Pillow before writing.

Also checks that OpenCV's imread (IMREAD_IGNORE_ORIENTATION) gives the same pixels as Pillow for every
non-CMYK file (both use libjpeg-turbo with accurate DCT and fancy upsampling), and prints the result.
"""
import ctypes, ctypes.util, io, os, struct, subprocess, sys, tempfile
import numpy as np
from PIL import Image, ImageOps

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "Tests", "BlazeImageTests", "Fixtures", "jpeg")
PHOTO = os.path.join(REPO, "Benchmarks", "photos", "mpii_052475643.png")

TJPF_CMYK, TJPF_RGB = 11, 0
TJSAMP_444, TJSAMP_440 = 0, 4


def write(name, data):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)


def pillow_rgb(jpeg_bytes):
    return Image.open(io.BytesIO(jpeg_bytes)).convert("RGB")


def png_bytes(image):
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def save_case(name, jpeg_bytes, expected=None):
    """Writes name.jpg and name.png (Pillow's decode, or `expected`)."""
    expected = expected if expected is not None else pillow_rgb(jpeg_bytes)
    write(name + ".jpg", jpeg_bytes)
    write(name + ".png", png_bytes(expected))
    return expected


def pillow_jpeg(image, **options):
    buf = io.BytesIO()
    image.save(buf, format="JPEG", **options)
    return buf.getvalue()


def cjpeg(image, *args):
    with tempfile.TemporaryDirectory() as d:
        ppm = os.path.join(d, "in.ppm")
        image.save(ppm)
        return subprocess.run(["cjpeg", *args, ppm], check=True, capture_output=True).stdout


def turbojpeg_compress(pixels, width, height, pixel_format, channels, subsamp, quality):
    """tjCompress2 through ctypes (TJPF_CMYK input gives a YCCK JPEG with an Adobe marker)."""
    lib = ctypes.CDLL(ctypes.util.find_library("turbojpeg") or "libturbojpeg.so.0")
    lib.tjInitCompress.restype = ctypes.c_void_p
    lib.tjCompress2.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                ctypes.c_int, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_ulong),
                                ctypes.c_int, ctypes.c_int, ctypes.c_int]
    lib.tjFree.argtypes = [ctypes.c_void_p]
    lib.tjDestroy.argtypes = [ctypes.c_void_p]
    handle = lib.tjInitCompress()
    out, size = ctypes.c_void_p(), ctypes.c_ulong(0)
    src = bytes(pixels)
    rc = lib.tjCompress2(handle, src, width, width * channels, height, pixel_format, ctypes.byref(out),
                         ctypes.byref(size), subsamp, quality, 0)
    assert rc == 0, "tjCompress2 failed"
    data = ctypes.string_at(out, size.value)
    lib.tjFree(out)
    lib.tjDestroy(handle)
    return data


def segments(jpeg_bytes):
    """(marker, start, end) of each marker segment before SOS."""
    out, p = [], 2
    while p + 4 <= len(jpeg_bytes) and jpeg_bytes[p] == 0xFF:
        marker = jpeg_bytes[p + 1]
        length = struct.unpack(">H", jpeg_bytes[p + 2:p + 4])[0]
        out.append((marker, p, p + 2 + length))
        if marker == 0xDA:
            break
        p += 2 + length
    return out


def remove_segments(jpeg_bytes, marker):
    out, last = bytearray(), 0
    for m, start, end in segments(jpeg_bytes):
        if m == marker:
            out += jpeg_bytes[last:start]
            last = end
    return bytes(out + jpeg_bytes[last:])


def exif_app1(orientation, big_endian):
    """An APP1 Exif segment: TIFF header, IFD0 with Make, Model, Orientation, XResolution; next IFD 0."""
    e = ">" if big_endian else "<"
    make, model = b"BlazeKit\0", b"fixture\0"
    entries_at = 8
    n = 4
    data_at = entries_at + 2 + 12 * n + 4
    make_at, model_at = data_at, data_at + len(make)
    rational_at = model_at + len(model)
    ifd = struct.pack(e + "H", n)
    ifd += struct.pack(e + "HHII", 0x010F, 2, len(make), make_at)            # Make, ASCII, out of line
    ifd += struct.pack(e + "HHII", 0x0110, 2, len(model), model_at)          # Model, ASCII, out of line
    ifd += struct.pack(e + "HHIHH", 0x0112, 3, 1, orientation, 0)           # Orientation, SHORT, inline
    ifd += struct.pack(e + "HHII", 0x011A, 5, 1, rational_at)                # XResolution, RATIONAL
    ifd += struct.pack(e + "I", 0)                                           # no IFD1
    header = (b"MM\x00\x2a" if big_endian else b"II\x2a\x00") + struct.pack(e + "I", entries_at)
    tiff = header + ifd + make + model + struct.pack(e + "II", 72, 1)
    payload = b"Exif\0\0" + tiff
    return b"\xFF\xE1" + struct.pack(">H", len(payload) + 2) + payload


def insert_after_app0(jpeg_bytes, segment):
    segs = segments(jpeg_bytes)
    at = segs[0][2] if segs and segs[0][0] == 0xE0 else 2
    return jpeg_bytes[:at] + segment + jpeg_bytes[at:]


# Inverse of each EXIF orientation's display transform (Pillow's exif_transpose applies the forward one:
# 2 FLIP_LEFT_RIGHT, 3 ROTATE_180, 4 FLIP_TOP_BOTTOM, 5 TRANSPOSE, 6 ROTATE_270, 7 TRANSVERSE, 8 ROTATE_90).
STORE_AS = {
    1: None,
    2: Image.Transpose.FLIP_LEFT_RIGHT,
    3: Image.Transpose.ROTATE_180,
    4: Image.Transpose.FLIP_TOP_BOTTOM,
    5: Image.Transpose.TRANSPOSE,
    6: Image.Transpose.ROTATE_90,
    7: Image.Transpose.TRANSVERSE,
    8: Image.Transpose.ROTATE_270,
}


def cmyk_from_rgb(rgb):
    """Real (not inverted) CMYK with black generation: K = 255 - max(R, G, B)."""
    a = np.asarray(rgb).astype(np.float64)
    k = 255.0 - a.max(axis=2)
    denom = np.maximum(255.0 - k, 1.0)
    cmy = (255.0 - a - k[..., None]) * 255.0 / denom[..., None]
    return np.clip(np.rint(np.dstack([cmy, k])), 0, 255).astype(np.uint8)


def main():
    os.makedirs(OUT, exist_ok=True)
    for f in os.listdir(OUT):
        os.remove(os.path.join(OUT, f))
    photo = Image.open(PHOTO).convert("RGB")
    crop = photo.crop((455, 165, 455 + 77, 165 + 53))          # hand, checked shirt, background
    small = photo.crop((372, 128, 372 + 37, 128 + 23))          # a hand against the background

    cases = {}
    cases["photo_420"] = pillow_jpeg(crop, quality=85, subsampling=2)
    cases["photo_422"] = pillow_jpeg(crop, quality=85, subsampling=1)
    cases["photo_444"] = pillow_jpeg(crop, quality=92, subsampling=0)
    cases["photo_440"] = turbojpeg_compress(crop.tobytes(), crop.width, crop.height, TJPF_RGB, 3, TJSAMP_440, 85)
    cases["photo_progressive"] = pillow_jpeg(crop, quality=85, subsampling=2, progressive=True, optimize=True)
    cases["photo_restart"] = cjpeg(crop, "-quality", "80", "-sample", "2x2", "-restart", "3B")
    cases["photo_arithmetic"] = cjpeg(crop, "-quality", "80", "-arithmetic")
    cases["photo_gray"] = pillow_jpeg(crop.convert("L"), quality=85)
    cmyk = Image.fromarray(cmyk_from_rgb(crop), mode="CMYK")
    cases["photo_cmyk_adobe"] = pillow_jpeg(cmyk, quality=90)
    cases["photo_cmyk_noadobe"] = remove_segments(cases["photo_cmyk_adobe"], 0xEE)
    inverted = 255 - cmyk_from_rgb(crop)                        # Adobe/Photoshop polarity, as Pillow stores it
    cases["photo_ycck"] = turbojpeg_compress(inverted.tobytes(), crop.width, crop.height, TJPF_CMYK, 4, TJSAMP_444, 90)

    # Sanity checks on what was written.
    assert Image.open(io.BytesIO(cases["photo_progressive"])).info.get("progressive") == 1
    assert Image.open(io.BytesIO(cases["photo_cmyk_adobe"])).info.get("adobe_transform") == 0
    assert "adobe" not in Image.open(io.BytesIO(cases["photo_cmyk_noadobe"])).info
    assert Image.open(io.BytesIO(cases["photo_ycck"])).info.get("adobe_transform") == 2
    assert b"\xFF\xDD" in cases["photo_restart"] and b"\xFF\xC9" in cases["photo_arithmetic"]
    for name, data in cases.items():
        decoded = save_case(name, data)
        assert decoded.size == crop.size, name

    # EXIF orientations on identical compressed data.
    base = pillow_jpeg(small, quality=85, subsampling=2)
    for k in range(1, 9):
        data = insert_after_app0(base, exif_app1(k, big_endian=(k % 2 == 0)))
        im = Image.open(io.BytesIO(data))
        assert im.getexif().get(0x0112) == k, "Pillow does not read our EXIF orientation"
        upright = ImageOps.exif_transpose(im).convert("RGB")
        save_case(f"exif_photo_{k}", data, expected=upright)

    # EXIF orientations on physically transformed flat-block content (exact by construction).
    tiles = photo.crop((250, 120, 610, 360)).resize((6, 4), Image.Resampling.BOX)
    upright_blocks = tiles.resize((48, 32), Image.Resampling.NEAREST)
    assert len(np.unique(np.asarray(upright_blocks).reshape(-1, 3), axis=0)) == 24, "blocks must all differ so every orientation is distinguishable"
    reference = None
    for k in range(1, 9):
        stored = upright_blocks if STORE_AS[k] is None else upright_blocks.transpose(STORE_AS[k])
        exif = Image.Exif()
        exif[0x0112] = k
        data = pillow_jpeg(stored, quality=100, subsampling=0, exif=exif.tobytes())
        shown = ImageOps.exif_transpose(Image.open(io.BytesIO(data))).convert("RGB")
        if reference is None:
            reference = shown
            save_case("exif_blocks_1", data)
        else:
            assert shown.tobytes() == reference.tobytes(), f"exif_blocks_{k} does not display as exif_blocks_1"
            write(f"exif_blocks_{k}.jpg", data)

    # Cross-check: OpenCV's decoder gives Pillow's pixels (not for CMYK: OpenCV uses its own formula).
    try:
        import cv2
    except ImportError:
        print("cv2 not available; skipped the OpenCV cross-check")
    else:
        for name in sorted(os.listdir(OUT)):
            if not name.endswith(".jpg") or "cmyk" in name or "ycck" in name:
                continue
            path = os.path.join(OUT, name)
            bgr = cv2.imread(path, cv2.IMREAD_COLOR | cv2.IMREAD_IGNORE_ORIENTATION)
            ours = np.asarray(Image.open(path).convert("RGB"))
            same = bgr is not None and np.array_equal(bgr[:, :, ::-1], ours)
            print(f"{name}: OpenCV {cv2.__version__} {'==' if same else '!='} Pillow")

    total = sum(os.path.getsize(os.path.join(OUT, f)) for f in os.listdir(OUT))
    print(f"wrote {len(os.listdir(OUT))} files, {total} bytes, to {OUT}")


if __name__ == "__main__":
    sys.exit(main())
