"""The progress of a run: a callback of yours, or a tqdm bar as the command line's bar.

The engine calls progress(t, tfinal) (ms simulated, ms to simulate) after its epochs, at
most every 0.1 s. progress="auto" shows a tqdm bar, where tqdm is installed and stderr is
a terminal (or a notebook runs), once the run has taken 2 s, as `arbolito run` shows its.
"""
import sys
import time

# The command line's bar waits as long (app/progress_bar.hpp).
SHOW_AFTER_S = 2.0


class _TqdmBar:
    def __init__(self, tqdm):
        self._tqdm = tqdm
        self._bar = None
        self._start = time.monotonic()

    def __call__(self, t, tfinal):
        if self._bar is None:
            if time.monotonic() - self._start < SHOW_AFTER_S or tfinal <= 0:
                return
            self._bar = self._tqdm(total=tfinal, unit="ms", desc="arbolito", leave=False,
                                   bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} ms [{elapsed}<{remaining}]")
        self._bar.update(t - self._bar.n)
        if t >= tfinal:
            self.close()

    def close(self):
        if self._bar is not None:
            self._bar.close()
            self._bar = None


def _interactive():
    return sys.stderr is not None and (sys.stderr.isatty() or "ipykernel" in sys.modules)


def make_progress(progress):
    """The callable the engine gets (or None) for run()'s progress argument: "auto", None
    or False, or a callable(t, tfinal)."""
    if progress is None or progress is False:
        return None
    if callable(progress):
        return progress
    if progress == "auto":
        if not _interactive():
            return None
        try:
            from tqdm.auto import tqdm
        except ImportError:
            return None
        return _TqdmBar(tqdm)
    raise ValueError(f"progress: expected 'auto', None or a callable(t, tfinal), got {progress!r}")
