"""The client's files as sent under their content hash: comments blanked, every line where it was, the code
unchanged (a slow phone link downloads about 15% less for a room link's first screen: issue 24)."""

from __future__ import annotations

import gzip
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.api import pages
from app.api.pages import without_comments


async def get(base: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base) as http:
        return await http.get(path)


async def test_scripts_and_stylesheets_come_without_their_comments_line_for_line(server: str) -> None:
    versions = pages.client_versions()
    sent = {}
    for path, digest in versions.items():
        if not path.endswith((".js", ".css")) or "vendor/" in path:
            continue
        response = await get(server, f"/static/{path}?v={digest}")
        assert response.status_code == 200, path
        source = (pages.STATIC_DIR / path).read_text(encoding="utf-8")
        body = response.text
        assert body.count("\n") == source.count("\n"), f"{path}: a line moved (errors name source lines)"
        if path.endswith(".js"):
            for kept, line in zip(body.split("\n"), source.split("\n"), strict=True):
                assert kept in (line, ""), (path, line)  # a line is sent as it is, or blank
                assert kept == line or line.strip().startswith(("//", "/*", "*")), (path, line)
        sent[path] = (source, body)
    assert len(sent) >= 30, sorted(sent)
    app_source, app_sent = sent["js/app.js"]
    assert "//" in app_source and len(gzip.compress(app_sent.encode())) < 0.85 * len(
        gzip.compress(app_source.encode())
    )
    assert "/*" in sent["css/app.css"][0] and "/*" not in sent["css/app.css"][1]
    # Without the hash the file is the source itself (a developer reading it, or an older page's URL).
    assert (await get(server, "/static/js/app.js")).text == app_source


@pytest.mark.slow
@pytest.mark.skipif(not shutil.which("node"), reason="node checks the scripts' syntax")
def test_every_script_sent_without_comments_still_parses() -> None:
    for path in pages.client_versions():
        if path.endswith(".js") and "vendor/" not in path:
            text = without_comments((pages.STATIC_DIR / path).read_text(encoding="utf-8"), "js")
            check = ["node", "--input-type=module", "--check"]
            result = subprocess.run(check, input=text, text=True, capture_output=True, check=False)
            assert result.returncode == 0, (path, result.stderr)


def test_comments_beside_code_or_in_strings_are_left_alone() -> None:
    script = "const a = 1; // kept: code before it\n/* a */ const b = 2;\n"
    assert without_comments(script, "js") == script  # code after a comment's end: the file as it is
    template = "const t = `\n// inside a template literal\n`;\n"
    assert without_comments(template, "js") == template
    css = 'a::before { content: "/* not a comment */"; }\n/* one\n two */\nb { color: red; }\n'
    blanked = 'a::before { content: "/* not a comment */"; }\n\n\nb { color: red; }\n'
    assert without_comments(css, "css") == blanked
    block = "/**\n * Doc.\n */\nexport const x = 1; // ok\n"
    assert without_comments(block, "js") == "\n\n\nexport const x = 1; // ok\n"


async def test_pages_and_files_are_served_from_the_index_made_once(
    sqlite_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once the client's files are indexed (on first use), no page nor file request walks static/: each
    did, to notice an edit (1.7-3.1 ms of CPU a request, against 0.5 for /healthz)."""
    versions = pages.client_versions()  # the index, as the first request of the process makes it
    walks: list[str] = []
    real_rglob = type(pages.STATIC_DIR).rglob

    def counted(self: Path, pattern: str) -> Iterator[Path]:
        walks.append(str(self))
        return real_rglob(self, pattern)

    monkeypatch.setattr(type(pages.STATIC_DIR), "rglob", counted)
    for path in ("/", "/standings", f"/static/js/app.js?v={versions['js/app.js']}", "/static/css/app.css"):
        for _ in range(3):
            assert (await get(sqlite_server, path)).status_code == 200, path
    assert walks == []
