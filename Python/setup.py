"""Builds libblazekit.so from the Swift package this folder sits in and puts it inside the `blazekit` package
(blazekit/_lib/). The distribution is `pyblazekit` (the name `blazekit` on PyPI belongs to an unrelated project);
the import name stays `blazekit`.

The library is linked with the Swift runtime and FoundationEssentials statically (-static-stdlib) when the
toolchain has its static libraries, and with OpenBLAS statically (its libopenblas.a; no libgfortran then), so the
wheel runs where no Swift toolchain is installed. The engine's modules use FoundationEssentials only, and the
build sets BLAZEKIT_MODELS_BESIDE_LIBRARY=1 (no resource bundle accessor), so full Foundation and ICU's data stay
out of the library. The wheel this makes is tagged linux_<arch>: `auditwheel repair` (see
Tools/checks/pywheel.sh) then copies libpng, libjpeg-turbo, zlib and the C++ runtime into it and tags it manylinux.
The built-in models are not in this wheel: they are the distributions pyblazekit-models-pose and
pyblazekit-models-hands-face (Python/model_wheels.py writes them), which install them beside the library.

Environment:
  BLAZEKIT_PREBUILT_LIBRARY  use this libblazekit.so instead of building one
  BLAZEKIT_SWIFT             the swift executable (default: swift on PATH)
  BLAZEKIT_SCRATCH_PATH      SwiftPM's scratch path for the static build (default: <repo>/.build-wheel)
  BLAZEKIT_DYNAMIC_STDLIB=1  link the Swift runtime dynamically (smaller; needs the toolchain at run time)
  BLAZEKIT_DYNAMIC_OPENBLAS=1  link libopenblas.so.0 as the package does (auditwheel then vendors it and libgfortran)
"""
import os
import shutil
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
    """The built libblazekit.so."""
    prebuilt = os.environ.get("BLAZEKIT_PREBUILT_LIBRARY")
    if prebuilt:
        return prebuilt
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
    # No SwiftPM resource bundle for the models (its accessor would link full Foundation and ICU's data): the
    # library looks for them in BlazeKit_BlazeModels.resources/bkm beside itself (Package.swift, BlazeModels).
    env = dict(env if env is not None else os.environ)
    env["BLAZEKIT_MODELS_BESIDE_LIBRARY"] = "1"
    print("blazekit: BLAZEKIT_MODELS_BESIDE_LIBRARY=1 " + " ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=REPO, env=env)
    bin_path = subprocess.check_output(cmd + ["--show-bin-path"], cwd=REPO, text=True, env=env).strip().splitlines()[-1]
    return os.path.join(bin_path, "libblazekit.so")


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library = build_library()
        target = os.path.join(self.build_lib, "blazekit", "_lib")
        os.makedirs(target, exist_ok=True)
        dest = os.path.join(target, "libblazekit.so")
        shutil.copyfile(library, dest)
        os.chmod(dest, 0o755)
        if shutil.which("strip"):
            subprocess.call(["strip", "--strip-unneeded", dest])


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
