"""A block device or file as a probe target, through fio: each batch of requests becomes a fio
job file and an iolog of its requests (libaio, O_DIRECT, queue depth one), written beside the
card in its jobs folder, numbered and named by probe, so the whole probe can be read and run
again by hand (``fio NNN-STAGE.fio`` in that folder). The per-request latency log fio writes
gives each request's latency; a pause before a request is a real pause.

Not here: the checks before a target is written (``target``).
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import numpy as np

from smrlab.errors import UsageError

from .drive import Batch


class FioDevice:
    def __init__(self, path: str, capacity: int, jobs: Path):
        self.name, self.capacity, self.jobs = path, capacity, jobs
        self.files: list[str] = []

    def serve(self, batch: Batch, stage: str = "probe") -> np.ndarray:
        cuts = [0, *np.flatnonzero(batch.pauses_ns[1:] > 0) + 1, len(batch)]
        out = []
        for start, end in zip(cuts, cuts[1:]):
            pause = int(batch.pauses_ns[start])
            if pause:
                time.sleep(pause / 1e9)
            part = Batch(
                *(column[start:end] for column in (batch.writes, batch.offsets, batch.lengths, batch.pauses_ns))
            )
            out.append(self._run(part, stage))
        return np.concatenate(out) if out else np.zeros(0, dtype=np.uint64)

    def _run(self, batch: Batch, stage: str) -> np.ndarray:
        name = f"{len(self.files) // 2 + 1:03d}-{stage}"
        iolog, job = self.jobs / f"{name}.iolog", self.jobs / f"{name}.fio"
        lines = ["fio version 2 iolog", f"{self.name} add", f"{self.name} open"]
        for write, offset, length in zip(batch.writes, batch.offsets, batch.lengths):
            lines.append(f"{self.name} {'write' if write else 'read'} {int(offset)} {int(length)}")
        lines.append(f"{self.name} close")
        iolog.write_text("\n".join(lines) + "\n")
        job.write_text(
            f"# smrlab probe, {stage}: {len(batch)} requests one after another (queue depth 1)\n"
            "[global]\nioengine=libaio\ndirect=1\niodepth=1\n"
            f"[{name}]\nfilename={self.name}\nread_iolog={iolog.name}\nreplay_no_stall=1\n"
            f"write_lat_log={name}\nlog_avg_msec=0\nlog_offset=1\n"
        )
        self.files += [str(job), str(iolog)]
        done = subprocess.run(
            ["fio", "--output-format=json", job.name], cwd=self.jobs, capture_output=True, text=True, check=False
        )
        logs = sorted(self.jobs.glob(f"{name}_*lat.*.log"))
        try:
            if done.returncode != 0:
                last = (done.stderr.strip().splitlines() or ["no message"])[-1]
                raise UsageError(f"fio failed on {self.name} ({job}): {last}")
            text = (self.jobs / f"{name}_lat.1.log").read_text()
            latencies = [int(line.split(",")[1]) for line in text.splitlines()]
        except (OSError, ValueError, IndexError) as error:
            raise UsageError(f"fio left no readable latency log for {job} ({error})") from None
        finally:
            for log in logs:
                log.unlink(missing_ok=True)
        if len(latencies) != len(batch):
            raise UsageError(f"fio reported {len(latencies)} latencies for {len(batch)} requests ({job})")
        return np.asarray(latencies, dtype=np.uint64)
