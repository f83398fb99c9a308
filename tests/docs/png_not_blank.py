#!/usr/bin/env python3
"""Checks that a PNG screenshot shows something: not one colour, and enough pixels differ from the
most common (background) colour. Standard library only (zlib): CI has no image library.

  png_not_blank.py SHOT.png [MIN_FRACTION]

MIN_FRACTION (default 0.005) is the least share of pixels that must differ from the background;
the report's plots and table cover far more than that, a blank or hidden page nothing at all.
Exit 0 when the picture shows something, 1 when blank, 2 when the file is not a PNG it can read.
"""
import struct
import sys
import zlib
from collections import Counter


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def read_png(path):
    """(width, height, channels, rows of bytes) of an 8-bit, non-interlaced grey/RGB/RGBA PNG."""
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
    if header is None:
        raise ValueError("no IHDR chunk")
    width, height, depth, colour, _, _, interlace = header
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace != 0:
        raise ValueError("unsupported PNG (depth %d, colour type %d, interlace %d)" % (depth, colour, interlace))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        if kind == 1:
            for i in range(channels, stride):
                line[i] = (line[i] + line[i - channels]) & 0xFF
        elif kind == 2:
            line = bytearray((a + b) & 0xFF for a, b in zip(line, prev))
        elif kind == 3:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                line[i] = (line[i] + ((left + prev[i]) >> 1)) & 0xFF
        elif kind == 4:
            for i in range(stride):
                left = line[i - channels] if i >= channels else 0
                upleft = prev[i - channels] if i >= channels else 0
                line[i] = (line[i] + paeth(left, prev[i], upleft)) & 0xFF
        elif kind != 0:
            raise ValueError("bad filter type %d in row %d" % (kind, y))
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


def main():
    path = sys.argv[1]
    minimum = float(sys.argv[2]) if len(sys.argv) > 2 else 0.005
    try:
        width, height, channels, rows = read_png(path)
    except (OSError, ValueError, zlib.error, struct.error) as e:
        print("png_not_blank: cannot read %s: %s" % (path, e), file=sys.stderr)
        return 2
    colours = Counter()
    for row in rows:
        colours.update(row[i:i + channels] for i in range(0, len(row), channels))
    total = width * height
    background, count = colours.most_common(1)[0]
    share = 1 - count / total
    if len(colours) < 2 or share < minimum:
        print("png_not_blank: %s is blank: %d colours, %.4f%% of %dx%d pixels differ from the background %s (need %.2f%%)"
              % (path, len(colours), 100 * share, width, height, background.hex(), 100 * minimum), file=sys.stderr)
        return 1
    print("png_not_blank: %s shows %d colours, %.2f%% of %dx%d pixels differ from the background"
          % (path, len(colours), 100 * share, width, height))
    return 0


if __name__ == "__main__":
    sys.exit(main())
