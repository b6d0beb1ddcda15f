"""What a turn's notification says, in the subscriber's language, and the JSON the service worker shows."""

from __future__ import annotations

import json

from app.store.push import Kind

LANGS = ("en", "fa")

# (title, body) by language and kind; {host} is the host's name as typed. The apostrophe is the page's (’).
_TEXTS: dict[str, dict[Kind, tuple[str, str]]] = {
    "en": {
        "turn": ("Your turn at {host}’s table", "Tap to open the table and play."),
        "reminder": (
            "An hour left for your turn at {host}’s table",
            "If you do not play by then, the server plays this turn for you.",
        ),
    },
    "fa": {
        "turn": ("نوبت شماست، میز {host}", "بزنید تا میز باز شود و بازی کنید."),
        "reminder": (
            "یک ساعت تا پایان نوبت شما در میز {host} مانده است",
            "اگر تا آن موقع بازی نکنید، سرور این نوبت را به جای شما بازی می‌کند.",
        ),
    },
}


def payload(*, code: str, kind: Kind, host_name: str, lang: str) -> bytes:
    """The notification for the seat's turn at table ``code`` (hosted by ``host_name``), as the JSON the
    service worker reads: ``title``, ``body``, ``url`` (the table's page), ``tag`` (one per table: a newer
    notification of the table replaces the older), ``lang`` and ``dir``."""
    lang = lang if lang in LANGS else "en"
    title, body = _TEXTS[lang][kind]
    return json.dumps(
        {
            "title": title.replace("{host}", host_name),
            "body": body,
            "url": f"/r/{code}",
            "tag": f"turn-{code}",
            "lang": lang,
            "dir": "rtl" if lang == "fa" else "ltr",
        },
        ensure_ascii=False,
    ).encode("utf-8")
