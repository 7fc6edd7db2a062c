"""``smrlab reproduce``: the reproduction scorecard — every claim of the five papers, ours
beside theirs, with its verdict — printed, and written as Markdown, JSON or Parquet.

Not here: the claims (experiments/claims/*.toml, read by ``smrlab.reproduce.claims``), their
judging (``smrlab.reproduce.verdict``), the runs (``smrlab.reproduce.scorecard``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import bundled, live, outputs
from smrlab.citations import PAPERS
from smrlab.cli.experiments import add_execution_arguments
from smrlab.errors import UsageError
from smrlab.reproduce import claims, output, scorecard, terminal
from smrlab.tables import add_json_argument, note


def available_papers(root: Path | None) -> list[str]:
    """The papers that have a claims file, in citation order."""

    folder = root or bundled.experiments_root()
    return [p for p in PAPERS if claims.claims_path(p, folder).is_file()]


def run(args: argparse.Namespace) -> int:

    papers = args.paper or available_papers(args.root)
    for paper in papers:
        if paper not in PAPERS:
            raise UsageError(f"--paper {paper!r}: not one of {', '.join(PAPERS)}")
    if not papers:
        raise UsageError(
            f"--root {args.root}: holds no claims file (experiments/claims/PAPER.toml, PAPER one of {', '.join(PAPERS)})"
        )
    if args.full_seeds and not args.full:
        raise UsageError("--full-seeds chooses the size of a --full run's seeds: a quick run draws every seed small")
    if args.general:
        return run_general(args, list(dict.fromkeys(papers)))
    # A run on real traces has a scorecard of its own, beside the synthetic one.
    name = f"scorecard-{'full' if args.full else 'quick'}{'-traces' if args.traces else ''}.json"
    outs = args.out or [args.results / name]
    output.check_outputs(outs, args.results, real=args.traces is not None)
    settings = scorecard.Settings(
        papers=list(dict.fromkeys(papers)),
        quick=not args.full,
        traces_dir=args.traces,
        sensitivity=args.sensitivity if args.sensitivity is not None else args.full,
        jobs=args.jobs,
        cluster=args.cluster,
        share_paths=args.shared_paths,
        out=args.results,
        seeds=args.seeds,
        full_seeds=args.full_seeds,
        **({"root": args.root} if args.root else {}),
    )

    card = scorecard.make(settings, announce=live.say)
    terminal.print_scorecard(card)
    for path in outs:
        note(f"scorecard written to {output.write(card, path)}")
    return 0


def run_general(args: argparse.Namespace, papers: list[str]) -> int:
    """``--general``: the general claims on each trace of the --traces folder."""
    import json

    # Here, not at the top: 7 ms or more of every command's start (python -X importtime).
    from smrlab.reproduce import general

    if args.traces is None:
        raise UsageError("--general needs --traces DIR: the folder of your traces to judge the general claims on")
    if args.full:
        raise UsageError("--general runs each claim's experiment as written on your traces: drop --full")
    outs = args.out or [args.results / "general.json"]
    for path in outs:  # before anything runs
        if path.suffix.lower() != ".json":
            raise UsageError(f"-o {path}: the --general card is written as .json")
        outputs.check_output(path)
    card = general.make(
        args.traces,
        papers,
        args.root or bundled.experiments_root(),
        args.results,
        jobs=args.jobs,
        cluster=args.cluster,
        share_paths=args.shared_paths,
        announce=live.say,
    )
    general.print_card(card)
    for path in outs:
        note(f"general claims written to {outputs.write_text(path, json.dumps(card.as_dict(), indent=1) + chr(10))}")
    return 0


# The command's --help text.
DESCRIPTION = (
    "Run the experiment files behind every claim of the chosen papers (experiments/claims/PAPER.toml names "
    "each claim's experiment, cells, metric and rule, as the paper words it) and judge each: holds, tie (inside "
    "the noise), direction only, fails, not comparable (a saturated response time the paper's reading cannot "
    "be told from) or not run; a claim that compares cells on generated traces runs on --seeds seeds. "
    "--quick runs smaller traces and leaves out the claims that need full-size ones; --full runs everything and, by default, "
    "re-runs each experiment at every value of the papers' open choices (the sensitivity table). Results "
    "folders are reused, so a second run only runs what is missing. docs/reproduction.md is written by "
    "'smrlab reproduce --full -o docs/reproduction.md'."
)


def register(commands) -> None:
    parser = commands.add(
        "reproduce",
        help="the reproduction scorecard: every claim of the five papers, ours beside theirs, and whether it holds",
        description=DESCRIPTION,
    )
    parser.add_argument(
        "--paper",
        action="append",
        metavar="PAPER",
        help=f"one paper ({', '.join(PAPERS)}); repeatable (default: every paper with a claims file)",
    )
    size = parser.add_mutually_exclusive_group()
    size.add_argument(
        "--quick", action="store_true", help="scaled-down traces, claims that need full-size ones left out (default)"
    )
    size.add_argument("--full", action="store_true", help="full-size traces, every claim, the sensitivity table")
    parser.add_argument(
        "--sensitivity",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="re-run at every value of each open choice (default: with --full only)",
    )
    parser.add_argument(
        "--traces",
        type=Path,
        metavar="DIR",
        help="a folder of the papers' real public traces (MSR Cambridge .csv, UMass .spc), used by name "
        "instead of smrlab's synthetic recipes (docs/reproduction.md says which files)",
    )
    parser.add_argument(
        "--general",
        action="store_true",
        help="with --traces DIR: judge every claim the claims files declare general (an order, a direction or "
        "a trend that names no one trace) on each trace in DIR, whatever its name and format (told from its "
        "content, or from a sidecar NAME.trace.toml: docs/your-traces.md), with the paper's "
        "geometry scaled to it; says per claim on how many of your traces it held",
    )
    parser.add_argument(
        "--root",
        type=Path,
        metavar="DIR",
        help="a folder holding experiments/*.toml and experiments/claims/PAPER.toml to use instead of "
        "smrlab's own (your claims on your experiments)",
    )
    parser.add_argument(
        "--seeds",
        type=int,
        default=3,
        metavar="N",
        help="seeds of each claim that compares cells on generated traces, each a fresh draw of the traces "
        "(default 3; 1 to 10). In a --full run the first seed runs the full-size traces (the values shown) "
        "and the others draw the experiment's [quick] traces on seeds 0 to N-1, to keep the run's time near "
        "one seed's (docs/reproduction.md says why)",
    )
    parser.add_argument(
        "--full-seeds",
        action="store_true",
        help="with --full: run every seed at full size, not the spread at the quick scale (about --seeds "
        "times the time of the claims on generated traces)",
    )
    add_execution_arguments(parser)
    parser.add_argument(
        "--results",
        type=Path,
        default=Path("results") / "reproduce",
        metavar="DIR",
        help="folder for the experiments' results folders, reused by later runs (default results/reproduce)",
    )
    parser.add_argument(
        "-o",
        "--out",
        type=Path,
        action="append",
        metavar="FILE",
        help="write the scorecard to FILE: .md (the page), .json or .parquet; repeatable "
        "(default: RESULTS/scorecard-MODE.json, or RESULTS/scorecard-MODE-traces.json with --traces)",
    )
    add_json_argument(parser)
    parser.set_defaults(func=run)
