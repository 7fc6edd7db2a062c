"""The papers whose systems smrlab implements, for captions, the report and ``CITATION.cff``:
one entry per paper, keyed by the name experiment files use (``[reproduces] paper = "pore"``).

Not here: the papers' numbers (each experiment file carries those it reproduces).
"""

from __future__ import annotations

PAPERS = {
    "pore": {
        "authors": "Chunling Wang, Dandan Wang, Yupeng Chai, Chuanwen Wang, Diansen Sun",
        "title": "Larger, Cheaper, but Faster: SSD-SMR Hybrid Storage Boosted by a New SMR-oriented Cache Framework",
        "venue": "IEEE International Conference on Massive Storage Systems and Technology (MSST)",
        "year": 2017,
        "short": "Wang et al., PORE (MSST 2017)",
    },
    "ucache": {
        "authors": "Mohammad Hossein Hajkazemi, Mania Abdi, Peter Desnoyers",
        "title": "uCache: a mutable cache for SMR translation layer",
        "venue": "IEEE International Symposium on Modeling, Analysis, and Simulation of Computer and Telecommunication Systems (MASCOTS)",
        "year": 2020,
        "short": "Hajkazemi et al., uCache (MASCOTS 2020)",
    },
    "hwsr": {
        "authors": "Dan Luo, Jiguang Wan, Yifeng Zhu, Nannan Zhao, Feng Li, Changsheng Xie",
        "title": "Design and Implementation of a Hybrid Shingled Write Disk System",
        "venue": "IEEE Transactions on Parallel and Distributed Systems (doi:10.1109/TPDS.2015.2425402)",
        "year": 2016,
        "short": "Luo et al., HWSR (IEEE TPDS)",
    },
    "fluidsmr": {
        "authors": "Fenggang Wu, Bingzhe Li, David H. C. Du",
        "title": "FluidSMR: Adaptive Management for Hybrid SMR Drives",
        "venue": "ACM Transactions on Storage 17(4), Article 32",
        "year": 2021,
        "short": "Wu, Li, Du, FluidSMR (ACM TOS 2021)",
    },
    "smrdb": {
        "authors": "Rekha Pitchumani",
        "title": "Data Management for Shingled Magnetic Recording Disks",
        "venue": "PhD thesis, University of California, Santa Cruz",
        "year": 2015,
        "short": "Pitchumani, SMRDB (PhD thesis)",
    },
}


def short(key: str) -> str:
    """The paper's short name, or ``key`` itself if it is not one of ours."""
    return PAPERS.get(key, {}).get("short", key)


def full(key: str) -> str:
    """Authors, title, venue and year, as one line."""
    paper = PAPERS.get(key)
    if paper is None:
        return key
    return f"{paper['authors']}. {paper['title']}. {paper['venue']}, {paper['year']}."
