"""The GIL is released during inference (two landmarkers on two threads run in parallel), and repeated
detect calls keep the process's memory flat. Figures are printed (pytest -s shows them)."""
import os
import threading
import time

import pytest

import blazekit as mp
from blazekit.tasks import python
from blazekit.tasks.python import vision

from conftest import photo_path

HAND = photo_path("hand", "onehand10k_33.png")


def make():
    # One thread per inference, so one Python thread uses one core and two can use two.
    return vision.HandLandmarker.create_from_options(
        vision.HandLandmarkerOptions(base_options=python.BaseOptions(thread_count=1)))


def frames_per_second(n_threads, frames):
    image = mp.Image.create_from_file(HAND)
    landmarkers = [make() for _ in range(n_threads)]
    for lm in landmarkers:
        lm.detect(image)  # warm-up

    def run(lm):
        for _ in range(frames):
            lm.detect(image)

    threads = [threading.Thread(target=run, args=(lm,)) for lm in landmarkers]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - start
    for lm in landmarkers:
        lm.close()
    return n_threads * frames / elapsed


@pytest.mark.skipif((os.cpu_count() or 1) < 2, reason="needs 2 cores")
def test_two_threads_run_in_parallel():
    frames = int(os.environ.get("BLAZEKIT_PARALLEL_FRAMES", "60"))
    best = 0.0
    for attempt in range(3):   # the best of three: other processes on a shared machine take cores at random
        one = frames_per_second(1, frames)
        two = frames_per_second(2, frames)
        ratio = two / one
        best = max(best, ratio)
        print(f"\nhand IMAGE detect: 1 thread {one:.1f} fps, 2 threads {two:.1f} fps, ratio {ratio:.2f}")
        if best >= 1.7:
            break
    ratio = best
    # 2.0x on an idle 2-core machine (1.95-2.00 measured). A landmarker that held the GIL (or a lock shared by
    # landmarkers) gives 1.0x or less; one whose fully connected layers woke OpenBLAS's threads gave 1.5-1.7x,
    # as those threads spun on the core the other landmarker needed. The best of three allows for a shared
    # machine's noise.
    required = 1.7
    assert ratio >= required, f"two landmarkers on two threads ran at {ratio:.2f}x one thread's frames per second"


def test_gil_released_during_detect():
    """A pure-Python thread keeps running while another thread is inside detect. Measured against the same C
    call made through ctypes.PyDLL, which holds the GIL, at the same moment, so machine load cancels out."""
    import ctypes
    from blazekit import _capi
    held = ctypes.PyDLL(_capi._library_path())
    held.blazekit_hand_landmarker_detect.restype = ctypes.c_int32
    held.blazekit_hand_landmarker_detect.argtypes = _capi.lib.blazekit_hand_landmarker_detect.argtypes
    image = mp.Image.create_from_file(HAND)
    c_image = image._c_image()
    landmarker = make()

    def progress(detect):
        done = threading.Event()
        count = [0]

        def spin():
            while not done.is_set():
                count[0] += 1
        spinner = threading.Thread(target=spin)
        spinner.start()
        for _ in range(15):
            out = ctypes.POINTER(_capi.HandResult)()
            assert detect(landmarker._handle, ctypes.byref(c_image), ctypes.byref(out)) == 0
            _capi.lib.blazekit_hand_result_free(out)
        done.set()
        spinner.join()
        return count[0]

    import sys
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.0005)   # a thread that holds the GIL hands it over after 0.5 ms of Python, not 5
    try:
        released = progress(_capi.lib.blazekit_hand_landmarker_detect)
        holding = progress(held.blazekit_hand_landmarker_detect)
    finally:
        sys.setswitchinterval(interval)
        landmarker.close()
    print(f"\nPython thread's progress during 15 detects: GIL released {released}, GIL held {holding}")
    assert released > 3 * holding


def rss_kib():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_rss_flat_over_repeated_detect():
    calls = int(os.environ.get("BLAZEKIT_RSS_CALLS", "1000"))
    image = mp.Image.create_from_file(HAND)
    with make() as landmarker:
        for _ in range(200):
            landmarker.detect(image)
        start = rss_kib()
        for _ in range(calls):
            landmarker.detect(image)
        end = rss_kib()
    print(f"\nRSS after 200 warm-up calls {start} KiB, after {calls} more {end} KiB ({end - start:+d} KiB)")
    assert end - start < 4096, f"RSS grew by {end - start} KiB over {calls} calls"
