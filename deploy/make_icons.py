"""Draw the installed app's icons (static/icons/*.png): a playing card with a red heart on the table's green.

Run once, when the design changes: ``python deploy/make_icons.py``. Plain Python (zlib and struct write the
PNGs), so no imaging library is needed, at run time or here. Each pixel is the average of 4x4 samples
(smooth edges).

- ``icon-192.png``, ``icon-512.png`` (purpose ``any``): a rounded green square, transparent corners;
- ``icon-maskable-512.png`` (purpose ``maskable``): green to every edge, the card inside the central circle
  of 40% radius that every launcher mask keeps.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Callable
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "static" / "icons"
GREEN = (0x0D, 0x3B, 0x2E)  # the page's theme colour
WHITE = (0xFF, 0xFF, 0xFF)
RED = (0xC0, 0x39, 0x2B)  # the hearts of the client's cards
EDGE = (0x33, 0x33, 0x33)
SAMPLES = 4

Colour = tuple[int, int, int, int]


def rounded_rect(cx: float, cy: float, half_w: float, half_h: float, radius: float) -> Callable[..., bool]:
    def inside(x: float, y: float) -> bool:
        dx = max(abs(x - cx) - (half_w - radius), 0.0)
        dy = max(abs(y - cy) - (half_h - radius), 0.0)
        return dx * dx + dy * dy <= radius * radius

    return inside


def heart(cx: float, cy: float, size: float) -> Callable[..., bool]:
    """The curve (x² + y² - 1)³ - x²y³ <= 0, ``size`` across, centred at (cx, cy) (y grows downwards)."""

    def inside(x: float, y: float) -> bool:
        u = (x - cx) / size * 2.6
        v = -(y - cy) / size * 2.6 + 0.15
        return (u * u + v * v - 1) ** 3 - u * u * v**3 <= 0

    return inside


def draw(size: int, maskable: bool) -> list[list[Colour]]:
    """The icon as rows of RGBA pixels; coordinates are fractions of the side."""
    background = (lambda x, y: True) if maskable else rounded_rect(0.5, 0.5, 0.5, 0.5, 0.18)
    scale = 0.78 if maskable else 1.0  # inside the maskable safe zone
    card_w, card_h = 0.30 * scale, 0.39 * scale
    border = rounded_rect(0.5, 0.5, card_w + 0.012, card_h + 0.012, 0.06 * scale)
    card = rounded_rect(0.5, 0.5, card_w, card_h, 0.05 * scale)
    pip = heart(0.5, 0.5, 0.36 * scale)
    layers: list[tuple[Callable[..., bool], tuple[int, int, int]]] = [
        (background, GREEN),
        (border, EDGE),
        (card, WHITE),
        (pip, RED),
    ]
    rows = []
    for py in range(size):
        row: list[Colour] = []
        for px in range(size):
            total = [0, 0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = (px + (sx + 0.5) / SAMPLES) / size
                    y = (py + (sy + 0.5) / SAMPLES) / size
                    colour = None
                    for inside, rgb in reversed(layers):
                        if inside(x, y):
                            colour = rgb
                            break
                    if colour is not None:
                        total[0] += colour[0]
                        total[1] += colour[1]
                        total[2] += colour[2]
                        total[3] += 255
            n = SAMPLES * SAMPLES
            alpha = total[3] // n
            covered = max(total[3] // 255, 1)
            row.append((total[0] // covered, total[1] // covered, total[2] // covered, alpha))
        rows.append(row)
    return rows


def png(rows: list[list[Colour]]) -> bytes:
    """An 8-bit RGBA PNG of ``rows``."""
    height, width = len(rows), len(rows[0])
    raw = b"".join(b"\x00" + bytes(channel for pixel in row for channel in pixel) for row in rows)

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raw, 9))
        + chunk(b"IEND", b"")
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, size, maskable in (
        ("icon-192.png", 192, False),
        ("icon-512.png", 512, False),
        ("icon-maskable-512.png", 512, True),
    ):
        (OUT / name).write_bytes(png(draw(size, maskable)))
        print(f"static/icons/{name}")


if __name__ == "__main__":
    main()
