"""A dataset cannot make the toolkit read or send a file outside it.

Through the command line, against a local endpoint that counts requests: a media path that leaves the data root
(``..``, an absolute path, a link pointing out) and a non-media file named as audio, image or video are refused
by ``infer`` (exit 2, one line naming file, entry and field, 0 requests), ``probe`` and ``validate-data``; with
``--allow-media-outside-root`` the run goes on, its manifest records it and every page states it; the viewer
links, and ``view --serve`` serves, no file outside the data root. The same for built-in benchmarks and for a
plug-in written from docs/plugins.md alone (``media_toy_benchmark.py``), and for the toy that keeps no record.
"""

from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from tiny_dataset import build_dataset, wav_bytes

from avibench.evaluate.card import build_card, card_document
from avibench.evaluate.viewer import make_server
from avibench.infer import media_verdicts
from avibench.media_paths import ALLOW_ENV, RealPaths, is_inside, resolved_root
from avibench.plugin import get_benchmark
from avibench.testing.fake_openai import FakeOpenAIServer, Fault, FaultPlan
from avibench.testing.harness import CliResult, invoke, registered_plugins

if TYPE_CHECKING:
    from conftest import Serve

KEY = "sk-media-root-5c1e"
SECRET = "OPENAI_API_KEY=sk-do-not-send-4d2a\n"
ESCAPES = ("dotdot", "absolute", "symlink")
STATED = "Media from outside the data root were used (--allow-media-outside-root)"


@pytest.fixture
def plugins_installed(tmp_path: Path) -> Iterator[None]:
    """The test plug-ins registered as a third-party distribution registers them (entry points on sys.path)."""
    with registered_plugins(
        tmp_path / "site",
        "mediatoy",
        {"mediatoy": "media_toy_benchmark:MediaToyBench", "toy": "toy_benchmark:ToyBench"},
        Path(__file__).parent,
    ):
        yield


def _jsonl(path: Path, entry: int, edit: Callable[[dict[str, Any]], None]) -> None:
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    edit(records[entry])
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")


def _secret_wav(tmp_path: Path) -> Path:
    """A real clip outside the data root: refused for where it is, not for what it holds."""
    secret = tmp_path / "secret" / "private.wav"
    secret.parent.mkdir(parents=True, exist_ok=True)
    secret.write_bytes(wav_bytes())
    return secret


def _escape(root: Path, case: str, secret: Path, link_dir: str) -> str:
    """The value a record names to reach ``secret`` from ``root`` in the given way."""
    if case == "dotdot":
        return f"../{secret.parent.name}/{secret.name}"
    if case == "absolute":
        return str(secret)
    link = root / link_dir / f"link{secret.suffix}"
    link.symlink_to(secret)
    return f"{link_dir}/{link.name}"


def _infer(server: FakeOpenAIServer, bench: str, root: Path, out: Path, *extra: str) -> CliResult:
    args = ["infer", "--model", "m", "--benchmark", bench, "--data-root", str(root), "--output-dir", str(out)]
    args += ["--base-url", server.base_url, "--retry-delay", "0.005", "--max-attempts", "1", *extra]
    return invoke(args, {"OPENAI_API_KEY": KEY})


def _refused(result: CliResult, where: str, why: str) -> None:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.code == 2, result.stderr
    assert len(lines) == 1, result.stderr
    assert where in lines[0] and why in lines[0], lines[0]


def _mmar(tmp_path: Path) -> Path:
    root = tmp_path / "mmar"
    assert invoke(["sample-data", "--benchmark", "mmar", "--out", str(root)]).code == 0
    return root


def _mediatoy(tmp_path: Path) -> Path:
    root = tmp_path / "scenes"
    assert invoke(["sample-data", "--benchmark", "mediatoy", "--out", str(root)]).code == 0
    return root


# -- a path that leaves the data root ---------------------------------------------------------------------------


@pytest.mark.parametrize("case", ESCAPES)
def test_mmar_media_leaving_the_root_are_refused_before_any_request(
    case: str, serve: Serve, tmp_path: Path
) -> None:
    root, secret = _mmar(tmp_path), _secret_wav(tmp_path)
    value = _escape(root, case, secret, "audio")
    _jsonl(root / "MMAR-meta.jsonl", 3, lambda r: r.update(audio_path=value))
    server = serve()
    where = f"{root / 'MMAR-meta.jsonl'} entry 3 field audio_path"
    _refused(_infer(server, "mmar", root, tmp_path / "out"), where, "outside the data root")
    probe = invoke(
        ["probe", "--model", "m", "--benchmark", "mmar", "--data-root", str(root)], {"OPENAI_API_KEY": KEY}
    )
    _refused(probe, where, "outside the data root")
    assert server.count == 0
    checked = invoke(["validate-data", str(root), "--benchmark", "mmar"])
    assert checked.code == 1 and f"error: {where}: media path" in checked.stdout, checked.stdout
    allowed = invoke(["validate-data", str(root), "--benchmark", "mmar", "--allow-media-outside-root"])
    assert f"warning: {where}: media path" in allowed.stdout and allowed.code == 0, allowed.stdout
    by_setting = invoke(["validate-data", str(root), "--benchmark", "mmar"], {ALLOW_ENV: "1"})
    assert by_setting.stdout == allowed.stdout and by_setting.code == 0


@pytest.mark.parametrize("case", ESCAPES)
@pytest.mark.parametrize("kind", ["image", "audio", "video"])
def test_a_plugin_from_the_docs_gets_the_same_refusal(
    case: str, kind: str, plugins_installed: None, serve: Serve, tmp_path: Path
) -> None:
    root = _mediatoy(tmp_path)
    secret = root / "media" / f"s0.{ {'image': 'png', 'audio': 'wav', 'video': 'mp4'}[kind] }"
    outside = tmp_path / "secret" / secret.name
    outside.parent.mkdir()
    shutil.copy(secret, outside)  # a real file of the right kind: refused for where it is
    value = _escape(root, case, outside, "media")
    _jsonl(root / "scenes.jsonl", 2, lambda r: r["media"].update({kind: value}))
    server = serve()
    where = f"{root / 'scenes.jsonl'} entry 2 field media.{kind}"
    _refused(_infer(server, "mediatoy", root, tmp_path / "out"), where, "outside the data root")
    assert server.count == 0
    checked = invoke(["validate-data", str(root), "--benchmark", "mediatoy"])
    assert checked.code == 1 and f"error: {where}: media path" in checked.stdout, checked.stdout


def test_a_plugin_keeping_no_record_is_named_by_the_part(
    plugins_installed: None, serve: Serve, tmp_path: Path
) -> None:
    root, secret = tmp_path / "toy", _secret_wav(tmp_path)
    assert invoke(["sample-data", "--benchmark", "toy", "--out", str(root)]).code == 0
    _jsonl(root / "yesno.jsonl", 1, lambda r: r.update(audio=f"../secret/{secret.name}"))
    server = serve()
    where = f"{root / 'yesno.jsonl'} entry 1 field parts[0] (audio)"
    _refused(_infer(server, "toy", root, tmp_path / "out"), where, "outside the data root")
    assert server.count == 0


# -- a file that does not decode as the kind it is declared as --------------------------------------------------


@pytest.mark.parametrize("kind", ["image", "audio", "video"])
def test_a_non_media_file_is_never_sent(
    kind: str, plugins_installed: None, serve: Serve, tmp_path: Path
) -> None:
    root = _mediatoy(tmp_path)
    name = {"image": "notes.png", "audio": "notes.wav", "video": "notes.mp4"}[kind]
    (root / "media" / name).write_text(SECRET, encoding="utf-8")
    _jsonl(root / "scenes.jsonl", 1, lambda r: r["media"].update({kind: f"media/{name}"}))
    server = serve()
    where = f"{root / 'scenes.jsonl'} entry 1 field media.{kind}"
    _refused(_infer(server, "mediatoy", root, tmp_path / "out"), where, f"does not decode as {kind}")
    assert server.count == 0
    checked = invoke(["validate-data", str(root), "--benchmark", "mediatoy"])
    assert checked.code == 1 and f"error: {where}: " in checked.stdout and f"as {kind}" in checked.stdout


def test_built_in_benchmarks_refuse_non_media_audio_image_and_video(serve: Serve, tmp_path: Path) -> None:
    server = serve()
    mmar = _mmar(tmp_path)
    (mmar / "audio" / "notes.wav").write_text(SECRET, encoding="utf-8")
    _jsonl(mmar / "MMAR-meta.jsonl", 4, lambda r: r.update(audio_path="./audio/notes.wav"))
    where = f"{mmar / 'MMAR-meta.jsonl'} entry 4 field audio_path"
    _refused(_infer(server, "mmar", mmar, tmp_path / "o1"), where, "does not decode as audio")

    omni = tmp_path / "omni"
    assert invoke(["sample-data", "--benchmark", "omnibench", "--out", str(omni)]).code == 0
    (meta_file,) = (omni / "dataset").glob("*.jsonl")
    first = json.loads(meta_file.read_text(encoding="utf-8").splitlines()[0])
    (omni / "mm_data" / "image" / first["image_path"]).write_text(SECRET, encoding="utf-8")
    where = f"{meta_file} entry 0 field image_path"
    _refused(_infer(server, "omnibench", omni, tmp_path / "o2"), where, "does not decode as image")

    levels = build_dataset(tmp_path / "levels", {"AVM": 2})
    (levels / "perception" / "AVM" / "input" / "videos" / "00001.mp4").write_text(SECRET, encoding="utf-8")
    where = f"{levels / 'perception' / 'AVM' / 'data.json'} entry 1 field input.video"
    _refused(_infer(server, "avibench", levels, tmp_path / "o3"), where, "does not decode as video")
    checked = invoke(["validate-data", str(levels), "--benchmark", "avibench"])
    assert checked.code == 1 and f"error: {where}: " in checked.stdout, checked.stdout
    assert server.count == 0


def test_files_found_good_are_not_decoded_again_on_resume(
    plugins_installed: None, serve: Serve, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, out = _mediatoy(tmp_path), tmp_path / "out"
    decoded: list[str] = []
    real = media_verdicts.decode_problem

    def counting(path: Path, kind: str) -> str | None:
        decoded.append(kind)
        return real(path, kind)

    monkeypatch.setattr(media_verdicts, "decode_problem", counting)
    failing = serve(plan=FaultPlan(markers={"Which colour": Fault("500")}))
    first = _infer(failing, "mediatoy", root, out, "--skip-probe")
    assert first.code == 1 and failing.count == 3  # every question failed: all are asked again
    assert sorted(decoded) == ["audio"] * 3 + ["image"] * 3 + ["video"] * 3
    good = (root / "media" / "s1.png").read_bytes()
    (root / "media" / "s1.png").write_text(SECRET, encoding="utf-8")  # an edited file is checked anew
    edited = _infer(serve(), "mediatoy", root, out, "--skip-probe")
    _refused(edited, "entry 1 field media.image", "does not decode as image")
    assert len(decoded) == 10
    (root / "media" / "s1.png").write_bytes(good)
    server = serve()
    again = _infer(server, "mediatoy", root, out, "--skip-probe")
    assert again.code == 0, again.stderr
    assert server.count == 3 and len(decoded) == 11  # sent, decoding only the file that changed


# -- the opt-in: the run goes on and every page says so ---------------------------------------------------------


def _outside_mediatoy(tmp_path: Path) -> tuple[Path, Path, str, str]:
    root = _mediatoy(tmp_path)
    outside = tmp_path / "elsewhere" / "far.png"
    outside.parent.mkdir()
    shutil.copy(root / "media" / "s0.png", outside)
    _jsonl(root / "scenes.jsonl", 0, lambda r: r["media"].update(image=str(outside)))
    return root, outside, "colour", f"{root / 'scenes.jsonl'} entry 0 field media.image"


def _outside_mmar(tmp_path: Path) -> tuple[Path, Path, str, str]:
    root = _mmar(tmp_path)
    outside = tmp_path / "elsewhere" / "far.wav"
    outside.parent.mkdir()
    first = json.loads((root / "MMAR-meta.jsonl").read_text(encoding="utf-8").splitlines()[0])
    shutil.copy(root / first["audio_path"], outside)
    _jsonl(root / "MMAR-meta.jsonl", 0, lambda r: r.update(audio_path=str(outside)))
    return root, outside, "MMAR", f"{root / 'MMAR-meta.jsonl'} entry 0 field audio_path"


@pytest.mark.parametrize("bench", ["mediatoy", "mmar"])
def test_with_the_opt_in_the_run_goes_on_and_every_page_states_it(
    bench: str, plugins_installed: None, serve: Serve, tmp_path: Path
) -> None:
    setup = {"mediatoy": _outside_mediatoy, "mmar": _outside_mmar}[bench]
    (root, outside, task, where), out = setup(tmp_path), tmp_path / "out"
    server = serve()
    common = ["--benchmark", bench, "--output-dir", str(out), "--model", "m"]
    ran = _infer(server, bench, root, out, "--allow-media-outside-root")
    assert ran.code == 0, ran.stderr
    questions = len(get_benchmark(bench).load(root, get_benchmark(bench).task(task)))
    assert server.count > questions  # the probe's requests, then every question
    run = out / "m" / bench
    recorded = json.loads((run / "manifest.json").read_text(encoding="utf-8"))["media_outside_root"]
    assert recorded == {task: {"files": 1, "first": f"{where}: {outside}"}}
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["eval", *common, "--allow-partial"]).code == 0
    assert invoke(["report", *common]).code == 0
    assert invoke(["view", *common]).code == 0
    assert invoke(["leaderboard", "--benchmark", bench, "--output-dir", str(out)]).code == 0
    for page in (run / "report.md", run / "report.html", run / "viewer.html"):
        assert STATED in page.read_text(encoding="utf-8"), page
    (board,) = out.glob(f"leaderboard*{bench}*.md")
    assert "[media outside the data root]" in board.read_text(encoding="utf-8")
    card = build_card(out, "m", [get_benchmark(bench)])
    assert any(STATED in line for line in card["benchmarks"][0]["settings"]["run"])
    assert STATED in json.dumps(card_document(card), default=lambda o: getattr(o, "__dict__", str(o)))
    # the page lists the outside file without linking it; the media inside the root keep their links
    rows = json.loads(_script(run / "viewer.html", "samples"))["rows"]
    media = {m["path"]: m for r in rows for m in r["media"]}
    assert media[f"../elsewhere/{outside.name}"].get("outside") is True
    assert sum(bool(m.get("outside")) for m in media.values()) == 1 and len(media) > 1


def _script(page: Path, element_id: str) -> str:
    text = page.read_text(encoding="utf-8")
    start = text.index(f'id="{element_id}">') + len(f'id="{element_id}">')
    return text[start : text.index("</script>", start)]


def test_view_refuses_a_dataset_with_media_outside_unless_allowed(
    plugins_installed: None, serve: Serve, tmp_path: Path
) -> None:
    root, out = _mediatoy(tmp_path), tmp_path / "out"
    common = ["--benchmark", "mediatoy", "--output-dir", str(out), "--model", "m"]
    assert _infer(serve(), "mediatoy", root, out).code == 0
    assert invoke(["refine", *common, "--mode", "rules"]).code == 0
    assert invoke(["eval", *common, "--allow-partial"]).code == 0
    _jsonl(root / "scenes.jsonl", 2, lambda r: r["media"].update(audio="../../etc/hostname"))
    where = f"{root / 'scenes.jsonl'} entry 2 field media.audio"
    _refused(invoke(["view", *common]), where, "outside the data root")
    assert invoke(["view", *common, "--allow-media-outside-root"]).code == 0


# -- view --serve ------------------------------------------------------------------------------------------------


def test_serve_answers_nothing_outside_the_data_root(tmp_path: Path) -> None:
    root = tmp_path / "data"
    (root / "media").mkdir(parents=True)
    (root / "media" / "ok.wav").write_bytes(wav_bytes())
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET, encoding="utf-8")
    (root / "media" / "link.wav").symlink_to(secret)
    (root / "media" / "dir").symlink_to(tmp_path, target_is_directory=True)
    server = make_server("<html></html>", root, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def status(path: str) -> int:
        try:
            with urllib.request.urlopen(base + path, timeout=10) as reply:
                return reply.status
        except urllib.error.HTTPError as exc:
            return exc.code

    try:
        assert status("/media/media/ok.wav") == 200
        for path in (
            "/media/../secret.txt",
            "/media/%2e%2e/secret.txt",
            f"/media/{secret}",
            f"/media//{secret}",
            "/media/media/link.wav",
            "/media/media/dir/secret.txt",
        ):
            assert status(path) == 404, path
    finally:
        server.shutdown()
        server.server_close()


def test_folder_cached_resolution_matches_realpath(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "data" / "a").mkdir(parents=True)
    (tmp_path / "away").mkdir()
    (tmp_path / "away" / "x.wav").write_bytes(wav_bytes())
    (tmp_path / "data" / "a" / "in.wav").write_bytes(wav_bytes())
    (tmp_path / "data" / "linkdir").symlink_to(tmp_path / "away", target_is_directory=True)
    (tmp_path / "data" / "a" / "link.wav").symlink_to(tmp_path / "away" / "x.wav")
    (tmp_path / "data" / "a" / "chain.wav").symlink_to("link.wav")
    monkeypatch.chdir(tmp_path)
    paths = [
        "data/a/in.wav",
        "data/a/link.wav",
        "data/a/chain.wav",
        "data/linkdir/x.wav",
        "data/linkdir/../a/in.wav",  # '..' after a link: the link's parent, not the text's
        "data/a/../../away/x.wav",
        "data/a/missing.wav",
        str(tmp_path / "data" / "a" / "in.wav"),
        "data/a/.",
        "in.wav",
    ]
    resolve = RealPaths()
    assert [resolve(p) for p in paths * 2] == [os.path.realpath(p) for p in paths * 2]
    root = resolved_root(Path("data"))
    assert [is_inside(p, root, resolve) for p in paths[:7]] == [True, False, False, False, False, False, True]
