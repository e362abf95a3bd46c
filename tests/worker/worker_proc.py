"""``python -m deid worker`` with the tests' gazetteer detector in place of the real one (so a
worker subprocess starts in a second and its detections are deterministic). Everything else is
the real command: settings from DEID_* variables, store, loop, signals, HTTP."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import os
import time

from worker_testkit import GazetteerDetector

import deid.pipeline


class SlowGazetteer(GazetteerDetector):
    """Optionally slow (DEID_TEST_DETECT_DELAY_S per batch) so a kill lands mid-stream."""

    def detect(self, texts, languages):  # type: ignore[no-untyped-def]
        time.sleep(float(os.environ.get("DEID_TEST_DETECT_DELAY_S", "0")))
        return super().detect(texts, languages)


deid.pipeline.build_detector = lambda settings: SlowGazetteer()

from deid.cli import main  # noqa: E402

sys.exit(main(["worker", *sys.argv[1:]]))
