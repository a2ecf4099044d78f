"""``avibench view``: every sample of a run in one self-contained HTML page, optionally served with its media.

The page lists each question as asked with its media (paths relative to the data root), ground truth, raw and
refined answers, refine method, per-profile score, failure reason, latency and tokens, read from the run's
samples.jsonl. Written as a file, media load from the data root through a relative path; with ``--serve`` a
small local server (127.0.0.1 only) serves the page at ``/`` and files under the data root at ``/media/``.

Neither links nor serves a file outside the data root (a ``..``, an absolute path, a link pointing out): the page
lists such media without a link, and the server answers 404. A dataset naming media outside its root is refused
(exit 2, naming file, entry and field) unless the run recorded ``--allow-media-outside-root`` or the flag is given.
"""

from __future__ import annotations

import html
import json
import mimetypes
import os
from collections.abc import Mapping, Sequence
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import click

from avibench.contracts import RunPaths
from avibench.evaluate import reuse
from avibench.evaluate.page_reuse import Printed, page_stamp, replayed
from avibench.evaluate.run_files import load_eval
from avibench.evaluate.samples import OUTCOMES, read_samples
from avibench.evaluate.viewer_page import BODY, SCRIPT, STYLE
from avibench.manifest import MEDIA_OUTSIDE_KEY, OTHER_DATA_HELP, check_data, load_manifest, page_caveats
from avibench.media_paths import RealPaths, allow_option, check_items, is_inside, resolved_root
from avibench.run_options import benchmark_option, locate
from avibench.store import write_if_changed

VIEWER_NAME = "viewer.html"
#: Fields of a samples.jsonl line the page shows (the rest stays in the file).
FIELDS = (
    "task",
    "key",
    "outcome",
    "scores",
    "method",
    "question",
    "system",
    "media",
    "answer",
    "raw",
    "refined",
    "error",
    "latency_s",
    "usage",
    "attempts",
)
#: Fields a row carries only where they say something (a plug-in's note on why a question scored as it did).
OPTIONAL_FIELDS = ("note",)
SERVE_MEDIA = "/media/"
_ERROR_HOOK = (
    "window.addEventListener('error',function(e){var h=document.documentElement;"
    "h.setAttribute('data-errors',(h.getAttribute('data-errors')||'')+String(e.message)+'\\n');});"
)


def _json_script(element_id: str, value: Any) -> str:
    """JSON inside a script element, with ``</`` escaped so no text can close the element early."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def unlinked_outside(rows: Sequence[Mapping[str, Any]], root: Path) -> tuple[list[dict[str, Any]], int]:
    """``rows`` with each media entry outside the data root marked ``outside`` (the page does not link it), and
    how many entries were marked. Paths are relative to the root; every link is followed."""
    inside_root, real_path = resolved_root(root), RealPaths()
    marked, count = [], 0
    for row in rows:
        media = row.get("media") or []
        kept = []
        for entry in media:
            path = str(entry.get("path") or "") if isinstance(entry, dict) else ""
            if isinstance(entry, dict) and not (
                path and is_inside(inside_root / path, inside_root, real_path)
            ):
                entry, count = {**entry, "outside": True}, count + 1
            kept.append(entry)
        marked.append({**row, "media": kept} if media else dict(row))
    return marked, count


def viewer_html(
    title: str,
    rows: Sequence[Mapping[str, Any]],
    *,
    tasks: Sequence[str],
    profile: str,
    media_base: str,
    notes: Sequence[str] = (),
) -> str:
    """The viewer page for ``rows`` (samples.jsonl lines); ``media_base`` prefixes every media path; ``notes``
    are stated under the title (what the run mixes, or other data it was scored on)."""
    slim = [
        {**{k: row.get(k) for k in FIELDS}, **{k: row[k] for k in OPTIONAL_FIELDS if row.get(k)}}
        for row in rows
    ]
    meta = {"tasks": list(tasks), "outcomes": list(OUTCOMES), "profile": profile, "media_base": media_base}
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{html.escape(title)}</title><style>{STYLE}</style><script>{_ERROR_HOOK}</script></head>",
            f"<body><h1>{html.escape(title)}</h1>",
            *(f'<p class="run-note">{html.escape(note)}</p>' for note in notes),
            BODY,
            _json_script("samples", {"rows": slim}),
            _json_script("meta", meta),
            f"<script>{SCRIPT}</script>",
            "</body></html>",
            "",
        ]
    )


def run_data_root(paths: RunPaths, meta: Mapping[str, Any], fallback: Path) -> Path:
    """Where the run's media are: the data root eval recorded, else the one infer recorded, else ``fallback``."""
    if meta.get("data_root"):
        return Path(str(meta["data_root"]))
    try:
        run = json.loads(paths.run_json.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        run = None
    if isinstance(run, dict) and run.get("data_root"):
        return Path(str(run["data_root"]))
    return fallback


def media_base_for(page: Path, data_root: Path) -> str:
    """The relative URL from the page's folder to the data root, ending in a slash."""
    rel = os.path.relpath(data_root.resolve(), page.parent.resolve())
    return Path(rel).as_posix().rstrip("/") + "/"


class _Handler(BaseHTTPRequestHandler):
    """``/`` is the page; ``/media/<path>`` a file under the data root (nothing outside it)."""

    def __init__(self, *args: Any, page: bytes, root: Path, **kwargs: Any):
        self.page, self.root = page, root.resolve()
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:
        path = unquote(urlsplit(self.path).path)
        if path in ("/", "/" + VIEWER_NAME):
            self._send(200, self.page, "text/html; charset=utf-8")
            return
        if path.startswith(SERVE_MEDIA):
            target = (self.root / path[len(SERVE_MEDIA) :]).resolve()
            if target.is_file() and target.is_relative_to(self.root):
                kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                self._send(200, target.read_bytes(), kind)
                return
        self._send(404, b"not found", "text/plain")


def make_server(page: str, data_root: Path, port: int) -> ThreadingHTTPServer:
    """A server on 127.0.0.1:``port`` (0 picks a free port) for the page and the data root's files."""
    handler = partial(_Handler, page=page.encode("utf-8"), root=data_root)
    return ThreadingHTTPServer(("127.0.0.1", port), handler)


@click.command(name="view")
@benchmark_option
@click.option("--model", default=None, help="Model id of the run (its label is derived from it).")
@click.option("--label", envvar="MODEL_LABEL", default=None, help="Run label; overrides --model.")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=None)
@click.option(
    "--data-root",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where the media are (default: the data root eval.json names).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Page path (default: beside eval.json).",
)
@click.option("--serve", is_flag=True, help="Serve the page and the media on 127.0.0.1 until interrupted.")
@click.option(
    "--port", type=int, default=8765, show_default=True, help="Port for --serve (0: any free port)."
)
@click.option("--allow-other-data", is_flag=True, help=OTHER_DATA_HELP)
@allow_option
def view(
    benchmark_name: str,
    model: str | None,
    label: str | None,
    output_dir: Path | None,
    data_root: Path | None,
    out: Path | None,
    serve: bool,
    port: int,
    allow_other_data: bool,
    allow_media_outside_root: bool,
) -> None:
    """Write (and with --serve, serve) a page listing every sample of a run: question, media, answers, scores.

    Filter by task, outcome, refine method and free text, sort, and link to a sample with #sample=TASK/KEY.
    Media outside the data root are never linked or served; a dataset that names some is refused unless the run
    was made with --allow-media-outside-root or the flag is given here. A page whose run files, data, media,
    options and code are unchanged since it was written is left as it is; delete it to build it again.
    """
    run = locate(benchmark_name, model, label, output_dir, None, notice=partial(click.echo, err=True))
    doc = load_eval(run.paths)
    meta, summary = doc.get("meta") or {}, doc.get("summary") or {}
    page_path = out or run.paths.root / VIEWER_NAME
    stamp = None
    if not serve:  # a page to serve is built in memory
        given = [data_root] if data_root else []
        options = {"page": str(page_path.resolve()), "given": [str(r) for r in given]}
        options.update(other=allow_other_data, outside=allow_media_outside_root)
        stamp = page_stamp(run, meta, options, given)
        if replayed(page_path, stamp):
            return
    printed = Printed()
    notes = page_caveats(
        run.benchmark, run.paths, meta, stage="view", allow_other_data=allow_other_data, notice=printed.notice
    )
    root = data_root or run_data_root(run.paths, meta, run.data_root)
    if data_root is not None:
        manifest = load_manifest(run.benchmark, run.paths)
        other = check_data(
            run.benchmark,
            run.paths,
            manifest,
            data_root,
            list((manifest or {}).get("tasks") or {}),
            stage="view",
            allow_other_data=allow_other_data,
        )
        if other:
            notes.append(
                f"Media from other data than the run's (--allow-other-data): {root} for {', '.join(other)}"
            )
    recorded = (load_manifest(run.benchmark, run.paths) or {}).get(MEDIA_OUTSIDE_KEY)
    rows = read_samples(run.paths)
    if not (allow_media_outside_root or recorded) and root.is_dir():
        for task in dict.fromkeys(str(r.get("task")) for r in rows):
            spec = next((t for t in run.benchmark.tasks() if t.name == task), None)
            if spec is not None and spec in run.benchmark.available(root):
                check_items(run.benchmark, root, spec, run.benchmark.load(root, spec), allow=False)
    rows, unlinked = unlinked_outside(rows, root)
    if unlinked:
        notes.append(f"{unlinked} media entries outside the data root {root} are listed without a link.")
    title = f"{run.benchmark.title or run.benchmark.name} samples: {run.label}"
    profile = str(summary.get("profile") or meta.get("profile") or "reference")
    tasks = [t.name for t in run.benchmark.tasks()]
    page = viewer_html(
        title,
        rows,
        tasks=tasks,
        profile=profile,
        media_base=SERVE_MEDIA if serve else media_base_for(page_path, root),
        notes=notes,
    )
    if stamp is not None:
        write_if_changed(page_path, page)
        printed(f"wrote {page_path} ({len(rows)} samples, media from {root})")
        reuse.record(page_path, stamp, [page_path], lines=printed.lines, exit_code=0)
        return
    server = make_server(page, root, port)
    click.echo(
        f"serving {len(rows)} samples at http://127.0.0.1:{server.server_address[1]}/ (Ctrl-C to stop)"
    )
    try:
        server.serve_forever()
    finally:
        server.server_close()
