"""BaseOptions (MediaPipe's tasks.python.core.base_options)."""
import dataclasses
import enum
from typing import Optional


@dataclasses.dataclass
class BaseOptions:
    """Where the model comes from: a path (a MediaPipe .task bundle, a converted .bkm landmark model or a
    directory of converted models) or the bytes of one. Neither: BlazeKit's built-in models.
    `delegate` is accepted for compatibility; BlazeKit runs on the CPU. `thread_count` (BlazeKit's addition):
    threads one inference may use, 1-64; None takes $BLAZEKIT_NUM_THREADS, else the processors this process may
    run on, at most 4 (MediaPipe too picks its threads itself). Results do not depend on it. `fixed_plan`
    (BlazeKit's addition): True plans the networks' kernels by fixed rules instead of timing the candidates
    when the landmarker is created, for a quicker start; the results are the same bits either way.
    `plan_cache_dir` (BlazeKit's addition): a directory (e.g. "~/.cache/blazekit/plans", made if missing) where
    the timed choices are kept, one file per network, CPU and thread count, so that later landmarkers plan from
    them without timing; the same bits again. Not with fixed_plan."""

    class Delegate(enum.Enum):
        CPU = 0
        GPU = 1

    model_asset_path: Optional[str] = None
    model_asset_buffer: Optional[bytes] = None
    delegate: Optional["BaseOptions.Delegate"] = None
    thread_count: Optional[int] = None
    fixed_plan: bool = False
    plan_cache_dir: Optional[str] = None
