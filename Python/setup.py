"""Builds libblazekit.so from the Swift package this folder sits in and puts it, with the built-in
models, inside the `blazekit` package (blazekit/_lib/). The distribution is `pyblazekit` (the name `blazekit` on
PyPI belongs to an unrelated project); the import name stays `blazekit`.

The library is linked with the Swift runtime and Foundation statically (-static-stdlib) when the toolchain has
its static libraries, and with OpenBLAS statically (its libopenblas.a; no libgfortran then), so the wheel runs
where no Swift toolchain is installed. The wheel this makes is tagged linux_<arch>: `auditwheel repair` (see
Tools/checks/pywheel.sh) then copies libpng, libjpeg-turbo, zlib and the C++ runtime into it and tags it manylinux.
The built-in models go in as the float16 variant of the model file (BLZKM16: each tensor float16 where every
value survives the round trip, else float32), which the runtime widens back to the same float32 bits at load.

Environment:
  BLAZEKIT_PREBUILT_LIBRARY  use this libblazekit.so instead of building one
  BLAZEKIT_SWIFT             the swift executable (default: swift on PATH)
  BLAZEKIT_SCRATCH_PATH      SwiftPM's scratch path for the static build (default: <repo>/.build-wheel)
  BLAZEKIT_DYNAMIC_STDLIB=1  link the Swift runtime dynamically (smaller; needs the toolchain at run time)
  BLAZEKIT_DYNAMIC_OPENBLAS=1  link libopenblas.so.0 as the package does (auditwheel then vendors it and libgfortran)
  BLAZEKIT_FLOAT32_MODELS=1  ship the built-in models as they are in Models/bkm (float32, twice the bytes)
"""
import json
import os
import shutil
import struct
import subprocess
import sysconfig

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py

try:
    from setuptools.command.bdist_wheel import bdist_wheel      # setuptools >= 70.1
except ImportError:  # pragma: no cover
    try:
        from wheel.bdist_wheel import bdist_wheel
    except ImportError:
        bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


def static_openblas_flags(scratch):
    """pkg-config files under `scratch` that make SwiftPM link OpenBLAS's static archive: a folder holding only
    libopenblas.a is searched before the system's (zlib's .pc, the first library on the link line, puts it
    there), so `-lopenblas` (also autolinked by the CBLAS module) finds the archive. Returns the environment."""
    libdir = subprocess.check_output(["pkg-config", "--variable=libdir", "openblas"], text=True).strip()
    cflags = subprocess.check_output(["pkg-config", "--cflags", "openblas"], text=True).strip()
    archive = os.path.join(libdir, "libopenblas.a")
    if not os.path.exists(archive):
        raise RuntimeError(f"blazekit: {archive} not found (libopenblas-dev); or set BLAZEKIT_DYNAMIC_OPENBLAS=1")
    static_dir = os.path.join(scratch, "wheel-static-libs")
    pc_dir = os.path.join(scratch, "wheel-pkgconfig")
    os.makedirs(static_dir, exist_ok=True)
    os.makedirs(pc_dir, exist_ok=True)
    link = os.path.join(static_dir, "libopenblas.a")
    if os.path.lexists(link):
        os.remove(link)
    os.symlink(os.path.realpath(archive), link)
    with open(os.path.join(pc_dir, "openblas.pc"), "w") as f:
        f.write("Name: openblas\nDescription: OpenBLAS, static (the wheel build)\nVersion: 0\n"
                f"Libs: -L{static_dir} -lopenblas -lpthread -lm\nCflags: {cflags}\n")
    zlib_libs = subprocess.check_output(["pkg-config", "--libs", "zlib"], text=True).strip()
    zlib_cflags = subprocess.check_output(["pkg-config", "--cflags", "zlib"], text=True).strip()
    with open(os.path.join(pc_dir, "zlib.pc"), "w") as f:
        f.write("Name: zlib\nDescription: zlib (the wheel build)\nVersion: 0\n"
                f"Libs: -L{static_dir} {zlib_libs}\nCflags: {zlib_cflags}\n")
    env = dict(os.environ)
    env["PKG_CONFIG_PATH"] = pc_dir + (":" + env["PKG_CONFIG_PATH"] if env.get("PKG_CONFIG_PATH") else "")
    return env


def build_library():
    """The built libblazekit.so and the built-in models' folder."""
    models = os.path.join(REPO, "Models", "bkm")
    prebuilt = os.environ.get("BLAZEKIT_PREBUILT_LIBRARY")
    if prebuilt:
        return prebuilt, models
    if not os.path.exists(os.path.join(REPO, "Package.swift")):
        raise RuntimeError(f"blazekit: no Package.swift in {REPO}; build from a BlazeKit checkout "
                           "or set BLAZEKIT_PREBUILT_LIBRARY")
    swift = os.environ.get("BLAZEKIT_SWIFT") or shutil.which("swift")
    if not swift:
        raise RuntimeError("blazekit: the Swift toolchain is needed to build libblazekit.so (swift not on PATH); "
                           "see the README's prerequisites, or set BLAZEKIT_PREBUILT_LIBRARY")
    static_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(swift))), "lib", "swift_static", "linux")
    cmd = [swift, "build", "-c", "release", "--product", "blazekit"]
    env = None
    if os.environ.get("BLAZEKIT_DYNAMIC_STDLIB") != "1" and os.path.exists(os.path.join(static_dir, "libswiftCore.a")):
        scratch = os.environ.get("BLAZEKIT_SCRATCH_PATH") or os.path.join(REPO, ".build-wheel")
        cmd += ["--scratch-path", scratch, "-Xswiftc", "-static-stdlib", "-Xlinker", "-L" + static_dir]
        mode = "dynamic-openblas" if os.environ.get("BLAZEKIT_DYNAMIC_OPENBLAS") == "1" else "static-openblas"
        if mode == "static-openblas":
            env = static_openblas_flags(scratch)
            # Keep OpenBLAS's symbols inside the library: a host's own BLAS is never interposed.
            cmd += ["-Xlinker", "--exclude-libs=libopenblas.a"]
        # SwiftPM keeps pkg-config's answers in its build description: when the OpenBLAS mode changes, make it ask again.
        stamp = os.path.join(scratch, "wheel-openblas-mode")
        previous = open(stamp).read() if os.path.exists(stamp) else None
        if previous != mode:
            for stale in (os.path.join(scratch, "release.yaml"),
                          os.path.join(scratch, "release", "description.json")):
                if os.path.exists(stale):
                    os.remove(stale)
            os.makedirs(scratch, exist_ok=True)
            with open(stamp, "w") as f:
                f.write(mode)
    print("blazekit: " + " ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=REPO, env=env)
    bin_path = subprocess.check_output(cmd + ["--show-bin-path"], cwd=REPO, text=True, env=env).strip().splitlines()[-1]
    return os.path.join(bin_path, "libblazekit.so"), models


# MARK: - The float16 variant of the model file (Sources/BlazeModelFormat/ModelFile.swift, MAINTENANCE.md)

FLOAT32_MAGIC = b"BLZKMDL\0"
FLOAT16_MAGIC = b"BLZKM16\0"


def fnv1a64_words(data):
    """ModelChecksum.fnv1a64Words: FNV-1a 64 over little-endian 64-bit words (a trailing partial word zero-padded)."""
    if len(data) % 8:
        data = bytes(data) + b"\0" * (8 - len(data) % 8)
    h, prime, mask = 0xcbf29ce484222325, 0x100000001b3, (1 << 64) - 1
    for (w,) in struct.iter_unpack("<Q", data):
        h = ((h ^ w) * prime) & mask
    return h


def float16_variant(data):
    """A float32 model file's bytes rewritten as the float16 variant, as ModelFileWriter's `.float16WhereExact`
    writes it: a tensor goes in as float16 when all its values convert to binary16 and back to the same float32
    bits, else as float32; the JSON keeps its key order, only the tensor table's dtype, offset and byteCount
    change. Checked here: every tensor widens back to the original bytes."""
    if data[:8] != FLOAT32_MAGIC:
        raise ValueError("not a float32 BlazeKit model file")
    header_length, data_offset, _ = struct.unpack_from("<QQQ", data, 16)
    header = json.loads(data[64:64 + header_length])
    payload = bytearray()
    originals = {}
    for t in header["tensors"]:
        count = t["byteCount"] // 4
        raw = data[data_offset + t["offset"]:data_offset + t["offset"] + 4 * count]
        originals[t["name"]] = raw
        values = struct.unpack(f"<{count}f", raw)
        try:
            half = struct.pack(f"<{count}e", *values)
            exact = struct.pack(f"<{count}f", *struct.unpack(f"<{count}e", half)) == raw
        except (OverflowError, struct.error):
            exact = False
        t["offset"] = len(payload)
        if exact:
            t["dtype"], t["byteCount"] = "float16", 2 * count
            payload += half
        else:
            payload += raw
        payload += b"\0" * (-len(payload) % 64)
    text = json.dumps(header, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()
    new_offset = 64 + len(text) + (-(64 + len(text)) % 64)
    out = bytearray(new_offset + len(payload))
    out[0:8] = FLOAT16_MAGIC
    out[8:16] = data[8:16]                                   # format and op-set versions
    struct.pack_into("<QQQ", out, 16, len(text), new_offset, len(payload))
    out[64:64 + len(text)] = text
    out[new_offset:] = payload
    struct.pack_into("<Q", out, 40, fnv1a64_words(memoryview(out)[64:]))
    # The widening the runtime does, checked: the same float32 bytes for every tensor.
    for t in header["tensors"]:
        start = new_offset + t["offset"]
        stored = out[start:start + t["byteCount"]]
        n = t["byteCount"] // (2 if t["dtype"] == "float16" else 4)
        widened = struct.pack(f"<{n}f", *struct.unpack(f"<{n}{'e' if t['dtype'] == 'float16' else 'f'}", stored))
        if widened != originals[t["name"]]:
            raise AssertionError(f"float16 variant of tensor {t['name']} does not widen to its float32 bytes")
    return bytes(out)


def copy_models(models, bkm):
    """Models/bkm into the package: the float16 variant of each .bkm unless BLAZEKIT_FLOAT32_MODELS=1."""
    if os.path.exists(bkm):
        shutil.rmtree(bkm)
    os.makedirs(bkm)
    for name in sorted(os.listdir(models)):
        src = os.path.join(models, name)
        if not name.endswith(".bkm"):
            continue
        with open(src, "rb") as f:
            data = f.read()
        if os.environ.get("BLAZEKIT_FLOAT32_MODELS") != "1":
            data = float16_variant(data)
        with open(os.path.join(bkm, name), "wb") as f:
            f.write(data)


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library, models = build_library()
        target = os.path.join(self.build_lib, "blazekit", "_lib")
        os.makedirs(target, exist_ok=True)
        dest = os.path.join(target, "libblazekit.so")
        shutil.copyfile(library, dest)
        os.chmod(dest, 0o755)
        if shutil.which("strip"):
            subprocess.call(["strip", "--strip-unneeded", dest])
        copy_models(models, os.path.join(target, "BlazeKit_BlazeModels.resources", "bkm"))
        notice = os.path.join(REPO, "Models", "NOTICE")
        if os.path.exists(notice):
            shutil.copyfile(notice, os.path.join(target, "MODELS_NOTICE"))


class BinaryDistribution(Distribution):
    """The package holds a native library: its files go to platlib (the wheel's root, root_is_pure False)."""
    def has_ext_modules(self):
        return True


cmdclass = {"build_py": BuildWithLibrary}
if bdist_wheel is not None:
    class PlatformWheel(bdist_wheel):
        """A platform wheel (it holds a native library) usable by any Python 3 (ctypes, no extension module)."""
        def finalize_options(self):
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self):
            return "py3", "none", sysconfig.get_platform().replace("-", "_").replace(".", "_")

    cmdclass["bdist_wheel"] = PlatformWheel

setup(cmdclass=cmdclass, distclass=BinaryDistribution)
