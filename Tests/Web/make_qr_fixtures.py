#!/usr/bin/env python3
"""Writes Tests/Web/Fixtures/qr-reference.json: QR Code symbols made by another encoder, the
Python package `qrcode` (`pip install qrcode`), at level M in byte mode (the text's UTF-8), each
with its mask given, for Tests/Web/qr_matrix.mjs to compare the page's encoder
(Sources/OPEPServer/Dashboard/qr.js) with, module for module. Encoders choose masks by penalty
rules they read differently (every mask makes a valid symbol), so the masks are given, not chosen.
(segno pads a data stream already ending on a byte boundary with one more zero byte, also valid,
so its symbols differ in their data modules.)"""
import json, os
import qrcode
from qrcode.util import QRData, MODE_8BIT_BYTE

texts = [
    ("HELLO", range(8)),
    ("https://clinic.example.org:8443/?token=5a7WDbx6QjMWV8qFIraru_0tnMB8mS0E", range(8)),
    ("http://192.168.1.20:8080/?token=Kq3-xZ_9aB0cD1eF2gH3iJ4kL5mN6oP7", range(8)),
    ("Pression expiratoire: 10–20 cmH₂O, é à ü", range(8)),
    ("https://a-rather-long-clinic-name.hospital.example.org:8443/coach/?token=" + "x" * 180, (3, 6)),
    ("".join(chr(33 + (n * 7) % 90) for n in range(600)), (1, 7)),
]
symbols = []
for text, masks in texts:
    for mask in masks:
        code = qrcode.QRCode(error_correction=qrcode.constants.ERROR_CORRECT_M, mask_pattern=mask, border=0)
        code.add_data(QRData(text.encode("utf-8"), mode=MODE_8BIT_BYTE), optimize=0)
        code.make(fit=True)
        symbols.append({
            "text": text, "version": code.version, "mask": mask,
            "rows": ["".join("1" if module else "0" for module in row) for row in code.get_matrix()],
        })
path = os.path.join(os.path.dirname(__file__), "Fixtures", "qr-reference.json")
with open(path, "w") as f:
    json.dump({"encoder": f"qrcode {qrcode.__version__ if hasattr(qrcode, '__version__') else ''}".strip(), "symbols": symbols}, f, ensure_ascii=False)
print(f"{path}: {len(symbols)} symbols, versions {sorted({s['version'] for s in symbols})}")
