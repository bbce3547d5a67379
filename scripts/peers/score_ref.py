#!/usr/bin/env python3
"""Reference implementation of the bigram and token scores (shared/corpora/README.md).

Plain Python 3, standard library only. It mirrors crates/score (canopy-score) and exists to
cross-check it; the definitions and edge cases are the same:

- tokens: re.findall(r"\\w+", text.lower()), each run then split so that every Han,
  Hiragana or Katakana character (CJK_RANGES, same list as crates/score/src/tokens.rs) is a
  token of its own; Hangul is not split.
- bigram: sets of consecutive token pairs; P = |G&S|/|S|, R = |G&S|/|G|, F1 harmonic mean.
  If either side has fewer than two tokens, the sets of single tokens are used instead.
- token: the same on multisets (Counter intersection).
- an output with no tokens scores 0; a division by zero counts as 0; F1 = 0 when P + R = 0.

Usage:
    score_ref.py OUTPUT_FILE GOLD_FILE        prints bigram/token P R F1 (repr floats)
    score_ref.py --pairs CORPUS N             prints a TSV of N (gold a, gold b) pairs of
                                              the corpus with their scores, a the output
"""

import re
import sys
from collections import Counter

CJK_RANGES = [
    (0x3005, 0x3007),
    (0x3021, 0x3029),
    (0x3038, 0x303C),
    (0x3040, 0x309F),
    (0x30A0, 0x30FF),
    (0x31F0, 0x31FF),
    (0x3400, 0x4DBF),
    (0x4E00, 0x9FFF),
    (0xF900, 0xFAFF),
    (0xFF66, 0xFF9F),
    (0x1AFF0, 0x1B16F),
    (0x20000, 0x323AF),
]

WORD_RUN = re.compile(r"\w+")


def is_cjk(ch):
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in CJK_RANGES)


def tokens(text):
    out = []
    for run in WORD_RUN.findall(text.lower()):
        start = 0
        for i, ch in enumerate(run):
            if is_cjk(ch):
                if start < i:
                    out.append(run[start:i])
                out.append(ch)
                start = i + 1
        if start < len(run):
            out.append(run[start:])
    return out


def prf(common, n_out, n_gold):
    p = common / n_out if n_out else 0.0
    r = common / n_gold if n_gold else 0.0
    f1 = 2 * p * r / (p + r) if p + r > 0 else 0.0
    return p, r, f1


def bigram_score(out, gold):
    if len(out) < 2 or len(gold) < 2:
        s, g = set(out), set(gold)
    else:
        s, g = set(zip(out, out[1:])), set(zip(gold, gold[1:]))
    return prf(len(s & g), len(s), len(g))


def token_score(out, gold):
    common = sum((Counter(out) & Counter(gold)).values())
    return prf(common, len(out), len(gold))


def score(output, gold):
    """(bigram (P, R, F1), token (P, R, F1)) of one page."""
    out, g = tokens(output), tokens(gold)
    if not out:
        return (0.0, 0.0, 0.0), (0.0, 0.0, 0.0)
    return bigram_score(out, g), token_score(out, g)


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def pairs(corpus, n):
    """N deterministic (a, b) pairs of the corpus's gold files: a strides through the
    manifest, b is the next page (often of the same site, so some overlap)."""
    import csv
    import os

    with open(os.path.join(corpus, "manifest.tsv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    step = max(1, len(rows) // n)
    print("output_id\tgold_id\tbigram_p\tbigram_r\tbigram_f1\ttoken_p\ttoken_r\ttoken_f1")
    for k in range(n):
        i = (k * step) % len(rows)
        j = (i + 1) % len(rows)
        a, b = rows[i], rows[j]
        (bp, br, bf), (tp, tr, tf) = score(
            read(os.path.join(corpus, a["gold"])), read(os.path.join(corpus, b["gold"]))
        )
        vals = "\t".join(repr(x) for x in (bp, br, bf, tp, tr, tf))
        print(f"{a['id']}\t{b['id']}\t{vals}")


def main(argv):
    if len(argv) == 3 and argv[0] == "--pairs":
        pairs(argv[1], int(argv[2]))
    elif len(argv) == 2:
        (bp, br, bf), (tp, tr, tf) = score(read(argv[0]), read(argv[1]))
        print(f"bigram P={bp!r} R={br!r} F1={bf!r}")
        print(f"token  P={tp!r} R={tr!r} F1={tf!r}")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
