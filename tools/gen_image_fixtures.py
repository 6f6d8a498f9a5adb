#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes the ImageDecoder fixtures of tests/kernels/test_ref_image.c into tests/data/image/.

Each case is an encoded image <name>.<ext> and <name>.npy, the image as PIL decodes it: uint8
[H, W, 4] holding img.convert("RGB") in channels 0-2 and img.convert("L") in channel 3 (the
ONNX reference, onnx/reference/ops/op_image_decoder.py, decodes with PIL; BGR is RGB reversed).
Sizes are odd (7x5, 19x13) so that rows, MCUs and strides do not line up. Some files are
written by PIL's encoders, the variants PIL cannot write (BMP bitfields, 16-bit BMP, plain and
16-bit PNM, Adam7 PNG, out-of-range palette indices) are assembled here byte by byte.

Run with Debian's Python (PIL 9.4 with libjpeg-turbo 2.1.5, libpng 1.6, libtiff 4.5,
libwebp 1.2.4, openjpeg 2.5, the libraries ember dlopen's):
    /usr/bin/python3 tools/gen_image_fixtures.py
"""
import io
import os
import struct
import zlib

import numpy as np
from PIL import Image

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "image")


def pattern(w, h):
    """A deterministic RGB image with smooth and sharp parts."""
    img = Image.new("RGB", (w, h))
    img.putdata([((x * 37 + y * 11) % 256, (x * 5 + y * 53 + 100) % 256,
                  ((x ^ y) * 29 + 7) % 256) for y in range(h) for x in range(w)])
    return img


def rgba_pattern(w, h):
    img = pattern(w, h).convert("RGBA")
    img.putalpha(Image.frombytes("L", (w, h), bytes((x * 40 + y * 7) % 256 for y in range(h)
                                                       for x in range(w))))
    return img


def saved(img, fmt, **kw):
    bio = io.BytesIO()
    img.save(bio, fmt, **kw)
    return bio.getvalue()


# ---- BMP variants PIL does not write --------------------------------------------------------

def bmp(w, h, bits, rows, palette=b"", comp=0, masks=b"", hsize=40, topdown=False, colors=0):
    stride = ((w * bits + 31) >> 3) & ~3
    data = b"".join(r.ljust(stride, b"\0") for r in (rows if topdown else rows[::-1]))
    extra = masks if hsize == 40 else b""
    off = 14 + hsize + len(extra) + len(palette)
    hdr = struct.pack("<IiiHHIIiiII", hsize, w, -h if topdown else h, 1, bits, comp, len(data),
                      2835, 2835, colors, 0)
    if hsize > 40:
        hdr += masks
    hdr = hdr.ljust(hsize, b"\0")
    return b"BM" + struct.pack("<IHHI", off + len(data), 0, 0, off) + hdr + extra + palette + data


def bmp_cases():
    w, h = 7, 5
    px = list(pattern(w, h).getdata())
    rows32 = [b"".join(bytes([b, g, r, 0x5a]) for r, g, b in px[y * w:(y + 1) * w])
              for y in range(h)]
    cases = {
        "bmp_rgb24": saved(pattern(w, h), "BMP"),
        "bmp_gray8": saved(pattern(w, h).convert("L"), "BMP"),
        "bmp_bw1": saved(pattern(w, h).convert("1"), "BMP"),
        "bmp_bgrx32_topdown": bmp(w, h, 32, rows32, topdown=True),
        "bmp_v5_rgba32": bmp(w, h, 32, rows32, comp=3, hsize=124,
                             masks=struct.pack("<IIII", 0xFF0000, 0xFF00, 0xFF, 0xFF000000)),
    }
    # 16-bit: 5-5-5 without masks, 5-6-5 with BI_BITFIELDS.
    p16 = [((x * 2311 + y * 977) * 7) & 0xFFFF for y in range(h) for x in range(w)]
    rows16 = [b"".join(struct.pack("<H", v) for v in p16[y * w:(y + 1) * w]) for y in range(h)]
    cases["bmp_rgb555"] = bmp(w, h, 16, rows16)
    cases["bmp_rgb565"] = bmp(w, h, 16, rows16, comp=3,
                              masks=struct.pack("<III", 0xF800, 0x7E0, 0x1F))
    # 4-bit palette of 5 colours; indices 5..15 fall outside it (PIL: grey ramp).
    pal = b"".join(bytes([40 * i, 255 - 30 * i, 60 * i % 256, 0]) for i in range(5))
    idx = [(x + 2 * y) % 16 for y in range(h) for x in range(w)]
    rows4 = [bytes((idx[y * w + x] << 4) | (idx[y * w + x + 1] if x + 1 < w else 0)
                   for x in range(0, w, 2)) for y in range(h)]
    cases["bmp_pal4_oob"] = bmp(w, h, 4, rows4, pal, colors=5)
    pal8 = b"".join(bytes([200 - 30 * i, 20 * i, 255 - 50 * i, 0]) for i in range(6))
    cases["bmp_pal8"] = bmp(w, h, 8, [bytes((x * y + x) % 6 for x in range(w)) for y in range(h)],
                            pal8, colors=6)
    # OS/2 1.x core header: 16-bit dims, 3-byte palette entries.
    core = struct.pack("<IHHHH", 12, w, h, 1, 24)
    data = b"".join(
        bytes(c for r, g, b in px[y * w:(y + 1) * w] for c in (b, g, r)).ljust(24, b"\0")
        for y in reversed(range(h)))
    cases["bmp_os2_rgb24"] = b"BM" + struct.pack("<IHHI", 26 + len(data), 0, 0, 26) + core + data
    return cases


# ---- PNM variants ---------------------------------------------------------------------------

def pnm_cases():
    w, h = 7, 5
    img = pattern(w, h)
    px = list(img.getdata())
    gray = list(img.convert("L").getdata())
    cases = {
        "pnm_p6": saved(img, "PPM"),
        "pnm_p5": saved(img.convert("L"), "PPM"),
        "pnm_p4": saved(img.convert("1"), "PPM"),
    }
    plain3 = " ".join(f"{r} {g} {b}" for r, g, b in px)
    cases["pnm_p3_comment"] = (b"P3\n# a comment\n7 5\n255\n" + plain3.encode() + b"\n")
    cases["pnm_p2_max15"] = (b"P2 7 5 15\n" + " ".join(str(v % 16) for v in gray).encode()
                             + b"\n")
    bits = "".join("1" if (x + y) % 3 == 0 else "0" for y in range(h) for x in range(w))
    cases["pnm_p1"] = b"P1\n7 5\n" + bits.encode() + b"\n"
    # 16-bit samples: maxval 1000 (scaled by PIL's PpmDecoder), 65535 grey (clipped).
    cases["pnm_p6_max1000"] = (b"P6\n7 5\n1000\n" + b"".join(
        struct.pack(">H", (v * 1000) // 255) for rgb in px for v in rgb))
    cases["pnm_p5_max65535"] = (b"P5 7 5 65535\n" + b"".join(
        struct.pack(">H", v * 3) for v in gray))
    cases["pnm_p5_max100"] = (b"P5\n7 5\n100\n" + bytes(v % 101 for v in gray))
    return cases


# ---- PNG variants ---------------------------------------------------------------------------

def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)


def png(w, h, bd, ct, scanlines, extra=b"", interlace=0):
    ihdr = struct.pack(">IIBBBBB", w, h, bd, ct, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(scanlines)) + chunk(b"IEND", b""))


def adam7(w, h, pixel_bytes, get):
    """Adam7 scanlines (filter 0) of an 8-bit image: get(x, y) -> bytes of one pixel."""
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4),
              (1, 0, 2, 2), (0, 1, 1, 2)]
    out = b""
    for x0, y0, dx, dy in passes:
        xs = range(x0, w, dx)
        if len(xs) == 0:
            continue
        for y in range(y0, h, dy):
            out += b"\0" + b"".join(get(x, y) for x in xs)
    return out


def png_cases():
    w, h = 7, 5
    img = pattern(w, h)
    cases = {
        "png_rgb8": saved(img, "PNG"),
        "png_gray8": saved(img.convert("L"), "PNG"),
        "png_rgba8": saved(rgba_pattern(w, h), "PNG"),
        "png_la8": saved(rgba_pattern(w, h).convert("LA"), "PNG"),
        "png_pal8_trns": saved(img.quantize(11), "PNG", transparency=3),
        "png_pal4": saved(img.quantize(9), "PNG", bits=4),
        "png_bw1": saved(img.convert("1"), "PNG"),
    }
    px = list(img.getdata())
    gray = list(img.convert("L").getdata())
    # 2-bit grey, 16-bit grey (clipped by PIL's I -> L), 16-bit RGB, out-of-range palette index.
    rows2 = b"".join(b"\0" + bytes(
        sum(((gray[y * w + x + k] >> 6) if x + k < w else 0) << (6 - 2 * k) for k in range(4))
        for x in range(0, w, 4)) for y in range(h))
    cases["png_gray2"] = png(w, h, 2, 0, rows2)
    cases["png_gray16"] = png(w, h, 16, 0, b"".join(
        b"\0" + b"".join(struct.pack(">H", gray[y * w + x] * 2) for x in range(w))
        for y in range(h)))
    cases["png_rgb16"] = png(w, h, 16, 2, b"".join(
        b"\0" + b"".join(struct.pack(">HHH", *(c * 256 + 37 * x % 256 for c in px[y * w + x]))
                         for x in range(w)) for y in range(h)))
    plte = bytes(v for i in range(6) for v in (40 * i, 255 - 40 * i, 90))
    oob_rows = b"".join(b"\0" + bytes((x * 3 + y * 5) % 9 for x in range(w)) for y in range(h))
    cases["png_pal8_oob"] = png(w, h, 8, 3, oob_rows, chunk(b"PLTE", plte))
    cases["png_rgb8_adam7"] = png(w, h, 8, 2, adam7(w, h, 3, lambda x, y: bytes(px[y * w + x])),
                                  interlace=1)
    return cases


def codec_cases():
    w, h = 19, 13
    img = pattern(w, h)
    small = pattern(7, 5)
    return {
        "jpeg_rgb420": saved(img, "JPEG"),
        "jpeg_rgb444_q95": saved(img, "JPEG", quality=95, subsampling=0),
        "jpeg_progressive": saved(img, "JPEG", progressive=True),
        "jpeg_gray": saved(img.convert("L"), "JPEG"),
        "jpeg_cmyk": saved(img.convert("CMYK"), "JPEG", quality=90),
        "jpeg_restart": saved(small, "JPEG", quality=80, restart_marker_blocks=1),
        "tiff_raw": saved(small, "TIFF"),
        "tiff_lzw": saved(img, "TIFF", compression="tiff_lzw"),
        "tiff_deflate_gray": saved(small.convert("L"), "TIFF", compression="tiff_adobe_deflate"),
        "tiff_jpeg": saved(img, "TIFF", compression="jpeg"),
        "tiff_pal": saved(small.quantize(7), "TIFF"),
        "tiff_rgba": saved(rgba_pattern(7, 5), "TIFF", compression="packbits"),
        "tiff_bw1": saved(small.convert("1"), "TIFF"),
        "webp_lossy": saved(img, "WEBP", quality=80),
        "webp_lossless": saved(img, "WEBP", lossless=True),
        "webp_alpha": saved(rgba_pattern(w, h), "WEBP", quality=70),
        "jp2_rgb": saved(img, "JPEG2000", irreversible=True),
        "j2k_gray": saved(small.convert("L"), "JPEG2000", no_jp2=True),
        "jp2_rgba": saved(rgba_pattern(7, 5), "JPEG2000"),
    }


EXT = {"bmp": "bmp", "pnm": "pnm", "png": "png", "jpeg": "jpg", "tiff": "tif", "webp": "webp",
       "jp2": "jp2", "j2k": "j2k"}


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = {}
    for make in (bmp_cases, pnm_cases, png_cases, codec_cases):
        cases.update(make())
    total = 0
    for name, data in sorted(cases.items()):
        img = Image.open(io.BytesIO(data))
        rgb = np.asarray(img.convert("RGB"), dtype=np.uint8)
        lum = np.asarray(img.convert("L"), dtype=np.uint8)
        expected = np.concatenate([rgb, lum[:, :, None]], axis=2)
        path = os.path.join(OUT, name + "." + EXT[name.split("_")[0]])
        with open(path, "wb") as f:
            f.write(data)
        np.save(os.path.join(OUT, name + ".npy"), expected)
        total += len(data) + os.path.getsize(os.path.join(OUT, name + ".npy"))
        print(f"{name:22s} {img.format:9s} {img.mode:5s} {img.size} {len(data)} bytes")
    print(f"{len(cases)} cases, {total} bytes")


if __name__ == "__main__":
    main()
