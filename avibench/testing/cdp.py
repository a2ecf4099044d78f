"""A small Chrome DevTools protocol driver for the browser tests and benchmarks: Debian's chromium, aiohttp's websocket client.

It opens a page, waits for it to load, evaluates expressions, records console messages and uncaught exceptions,
and takes screenshots. Nothing is downloaded: the browser is the system's ``chromium``.
"""

from __future__ import annotations

import asyncio
import base64
import itertools
import json
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import aiohttp

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


def find_browser() -> str | None:
    return next((path for name in BROWSERS if (path := shutil.which(name))), None)


class Browser:
    """One headless browser process and one page, driven over the DevTools websocket."""

    def __init__(self, executable: str, width: int = 1200, height: int = 900):
        self.profile = tempfile.mkdtemp(prefix="cdp-")
        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                "--allow-file-access-from-files",
                f"--window-size={width},{height}",
                f"--user-data-dir={self.profile}",
                "--remote-debugging-port=0",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self.console: list[str] = []
        self.exceptions: list[str] = []
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self._events: dict[str, asyncio.Event] = {}
        self.loop = asyncio.new_event_loop()
        self.loop.run_until_complete(self._connect())

    def _port(self) -> int:
        marker = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if marker.is_file() and marker.read_text().strip():
                return int(marker.read_text().split()[0])
            time.sleep(0.05)
        raise RuntimeError("chromium did not open its debugging port")

    async def _connect(self) -> None:
        port = self._port()
        self.session = aiohttp.ClientSession()
        async with self.session.get(f"http://127.0.0.1:{port}/json/list") as response:
            pages = [t for t in await response.json() if t["type"] == "page"]
        self.ws = await self.session.ws_connect(pages[0]["webSocketDebuggerUrl"], max_msg_size=0)
        self.reader = asyncio.ensure_future(self._read())
        for domain in ("Page", "Runtime"):
            await self._call(f"{domain}.enable")

    async def _read(self) -> None:
        async for message in self.ws:
            data = json.loads(message.data)
            if "id" in data and data["id"] in self._pending:
                self._pending.pop(data["id"]).set_result(data)
            elif data.get("method") == "Runtime.consoleAPICalled":
                args = data["params"]["args"]
                self.console.append(" ".join(str(a.get("value", a.get("description", ""))) for a in args))
            elif data.get("method") == "Runtime.exceptionThrown":
                self.exceptions.append(json.dumps(data["params"]["exceptionDetails"])[:500])
            elif data.get("method") == "Page.loadEventFired":
                self._events.setdefault("load", asyncio.Event()).set()

    async def _call(self, method: str, **params: Any) -> dict[str, Any]:
        ident = next(self._ids)
        future: asyncio.Future[Any] = self.loop.create_future()
        self._pending[ident] = future
        await self.ws.send_str(json.dumps({"id": ident, "method": method, "params": params}))
        reply = await asyncio.wait_for(future, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    def open(self, url: str) -> None:
        """Navigate and wait for the load event."""

        async def go() -> None:
            event = self._events.setdefault("load", asyncio.Event())
            event.clear()
            await self._call("Page.navigate", url=url)
            await asyncio.wait_for(event.wait(), 60)

        self.loop.run_until_complete(go())

    def eval(self, expression: str) -> Any:
        """The value of a JavaScript expression (promises awaited)."""
        result = self.loop.run_until_complete(
            self._call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression!r} raised {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0) -> Any:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.eval(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"{expression!r} stayed false for {timeout} s")

    def set_width(self, width: int, height: int = 900) -> None:
        """Lay the page out in a window ``width`` CSS pixels wide (a laptop's 1,366), as a user's window would."""
        self.loop.run_until_complete(
            self._call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
        )

    def clear_width(self) -> None:
        """Back to the window the browser was started with."""
        self.loop.run_until_complete(self._call("Emulation.clearDeviceMetricsOverride"))

    def screenshot(self, path: Path, full_page: bool = True) -> None:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        data = self.loop.run_until_complete(self._call("Page.captureScreenshot", **params))["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        async def stop() -> None:
            await self.ws.close()
            await self.session.close()
            self.reader.cancel()

        self.loop.run_until_complete(stop())
        self.loop.close()
        self.process.terminate()
        self.process.wait(10)
        shutil.rmtree(self.profile, ignore_errors=True)
