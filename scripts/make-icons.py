#!/usr/bin/env python3
"""Draws the coach's app icons (a pressure gauge with its target band) as PNG files, without any
imaging library: scripts/make-icons.py [FOLDER] writes icon-192.png, icon-512.png and
icon-maskable-512.png (the gauge inside the safe zone of a full-bleed square)."""
import math, os, struct, sys, zlib

BLUE, WHITE, GREEN, PALE = (31, 111, 235), (255, 255, 255), (46, 160, 67), (170, 200, 250)


def draw(size, scale):
    """RGBA rows of the icon: a rounded blue square (full-bleed when maskable) with the gauge at `scale`."""
    ss = 3
    rows = []
    cx = cy = size / 2
    outer, inner = 0.36 * size * scale, 0.27 * size * scale
    for y in range(size):
        row = bytearray()
        for x in range(size):
            acc = [0, 0, 0, 0]
            for sy in range(ss):
                for sx in range(ss):
                    px, py = x + (sx + 0.5) / ss, y + (sy + 0.5) / ss
                    colour = pixel(px, py, size, cx, cy + 0.06 * size * scale, outer, inner, scale)
                    for i in range(4):
                        acc[i] += colour[i]
            row += bytes(int(round(v / ss ** 2)) for v in acc)
        rows.append(bytes(row))
    return rows


def pixel(px, py, size, cx, cy, outer, inner, scale):
    corner = 0.18 * size if scale == 1 else 0
    dx = max(corner - px, 0, px - (size - corner))
    dy = max(corner - py, 0, py - (size - corner))
    if corner and math.hypot(dx, dy) > corner:
        return (0, 0, 0, 0)
    r = math.hypot(px - cx, py - cy)
    angle = math.degrees(math.atan2(cy - py, px - cx))   # 180 on the left, 0 on the right
    if inner <= r <= outer and 0 <= angle <= 180:
        return (*GREEN, 255) if 60 <= angle <= 120 else (*PALE, 255)
    needle = math.radians(100)
    nx, ny = math.cos(needle), -math.sin(needle)
    along = (px - cx) * nx + (py - cy) * ny
    across = abs((px - cx) * ny - (py - cy) * nx)
    if 0 <= along <= outer * 0.95 and across <= 0.025 * size * scale:
        return (*WHITE, 255)
    if r <= 0.05 * size * scale:
        return (*WHITE, 255)
    return (*BLUE, 255)


def png(rows, size):
    raw = b"".join(b"\x00" + row for row in rows)
    chunk = lambda tag, data: struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources", "OPEPServer", "Dashboard")
    for name, size, scale in [("icon-192.png", 192, 1), ("icon-512.png", 512, 1), ("icon-maskable-512.png", 512, 0.8)]:
        with open(os.path.join(folder, name), "wb") as f:
            f.write(png(draw(size, scale), size))
        print(os.path.join(folder, name))


if __name__ == "__main__":
    main()
