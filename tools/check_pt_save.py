#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Checks an archive written by `ember finetune ... --save OUT.pt` (tests/cli, issue #22) with
PyTorch (Debian's torch 1.13 at /usr/bin/python3):

    check_pt_save.py SAVED.pt SOURCE.pt X.npy EMBER_OUT.npy [PYTORCH_OUT.npy]

- torch.jit.load opens SAVED.pt; its module tree (named_modules), its code (every module's
  .code) and its record names are SOURCE.pt's, and every record outside data/ is byte-identical;
- its eval-mode output on X is within 1e-5 (abs, + 1e-5 relative) of ember's run of SAVED.pt
  (EMBER_OUT) and, when given, of PyTorch's own model after the same steps (PYTORCH_OUT).
Exits 1 with a message on the first difference.
"""
import sys
import zipfile

import numpy as np
import torch


def fail(msg):
    print("check_pt_save: " + msg)
    sys.exit(1)


def close(a, b, what):
    d = np.abs(a - b)
    tol = 1e-5 + 1e-5 * np.abs(b)
    if a.shape != b.shape or not (d <= tol).all():
        fail("%s: max |diff| %g (shapes %s, %s)" % (what, d.max(), a.shape, b.shape))
    print("%s: max |diff| %.3g" % (what, d.max()))


def main():
    saved, source, xf, ember_out = sys.argv[1:5]
    torch_out = sys.argv[5] if len(sys.argv) > 5 else None
    zs, zo = zipfile.ZipFile(saved), zipfile.ZipFile(source)
    ns, no = zs.namelist(), zo.namelist()
    if ns != no:
        fail("record names differ")
    changed = [n for n in ns if zs.read(n) != zo.read(n)]
    if any("/data/" not in n for n in changed):
        fail("records outside data/ changed: %s" % [n for n in changed if "/data/" not in n])
    if not changed:
        fail("no storage record changed")
    ms, mo = torch.jit.load(saved), torch.jit.load(source)
    if [n for n, _ in ms.named_modules()] != [n for n, _ in mo.named_modules()]:
        fail("module trees differ")
    for (n, a), (_, b) in zip(ms.named_modules(), mo.named_modules()):
        if a.code != b.code:
            fail("the code of module '%s' differs" % n)
    if list(ms.state_dict().keys()) != list(mo.state_dict().keys()):
        fail("state_dict keys differ")
    ms.eval()
    with torch.no_grad():
        y = ms(torch.tensor(np.load(xf))).numpy()
    close(y, np.load(ember_out), "torch.jit.load(saved) vs ember's run of it")
    if torch_out is not None:
        close(y, np.load(torch_out), "vs PyTorch's model after the same steps")
    print("check_pt_save: ok (%d storage records rewritten)" % len(changed))


if __name__ == "__main__":
    main()
