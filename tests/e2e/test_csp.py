"""The client and the API page run in a real browser under the server's Content-Security-Policy: nothing
they need is blocked (a violation is reported on the console)."""

from __future__ import annotations

from typing import Any


def csp_violations(page: Any) -> list[str]:
    found: list[str] = []
    page.on(
        "console",
        lambda message: found.append(message.text) if "Content Security Policy" in message.text else None,
    )
    return found


def test_the_api_page_renders_under_the_csp(new_page: Any, server: str) -> None:
    page = new_page()
    violations = csp_violations(page)
    response = page.goto(f"{server}/docs")
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    page.wait_for_selector(".opblock-tag")  # the routes are listed: the schema loaded and rendered
    page.locator(".opblock-summary").first.click()  # an operation opens (more UI, more styles)
    page.wait_for_selector(".opblock-body")
    assert page.locator(".opblock-tag").count() >= 3
    assert not violations, violations


def test_the_home_page_renders_under_the_csp(new_page: Any, server: str) -> None:
    page = new_page()
    violations = csp_violations(page)
    response = page.goto(server)
    assert "script-src 'self'" in response.headers["content-security-policy"]
    page.wait_for_selector("#main :is(button, input)")
    assert not violations, violations
