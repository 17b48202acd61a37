"""Builds libblazekit.so from the Swift package this folder sits in and puts it, with the built-in
models, inside the `blazekit` package (blazekit/_lib/). The library is linked with the Swift runtime and
Foundation statically (-static-stdlib) when the toolchain has its static libraries, so the wheel runs where
no Swift toolchain is installed.

Environment:
  BLAZEKIT_PREBUILT_LIBRARY  use this libblazekit.so instead of building one
  BLAZEKIT_SWIFT             the swift executable (default: swift on PATH)
  BLAZEKIT_DYNAMIC_STDLIB=1  link the Swift runtime dynamically (smaller; needs the toolchain at run time)
"""
import os
import shutil
import subprocess
import sysconfig

from setuptools import setup
from setuptools.command.build_py import build_py

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # pragma: no cover
    bdist_wheel = None

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)


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
    if os.environ.get("BLAZEKIT_DYNAMIC_STDLIB") != "1" and os.path.exists(os.path.join(static_dir, "libswiftCore.a")):
        cmd += ["--scratch-path", os.path.join(REPO, ".build", "static"), "-Xswiftc", "-static-stdlib",
                "-Xlinker", "-L" + static_dir]
    print("blazekit: " + " ".join(cmd), flush=True)
    subprocess.check_call(cmd, cwd=REPO)
    bin_path = subprocess.check_output(cmd + ["--show-bin-path"], cwd=REPO, text=True).strip().splitlines()[-1]
    return os.path.join(bin_path, "libblazekit.so"), models


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
        bkm = os.path.join(target, "BlazeKit_BlazeModels.resources", "bkm")
        if os.path.exists(bkm):
            shutil.rmtree(bkm)
        shutil.copytree(models, bkm, ignore=shutil.ignore_patterns("*.md", "NOTICE"))
        notice = os.path.join(REPO, "Models", "NOTICE")
        if os.path.exists(notice):
            shutil.copyfile(notice, os.path.join(target, "MODELS_NOTICE"))


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

setup(cmdclass=cmdclass)
