"""Train the KenLM 3-gram language model of the perplexity filter (2017 §5.6).

"We train a separate language model for each language/data pair on 40,000 references that are
separate from the 100,000 used for mining data. Due to the small data size, we train a 3-gram
language model and use the KenLM toolkit." :func:`hold_out_references` picks those references
from the candidate pairs (per ``corpus`` and ``src_lang``; fewer than 40,000 when the corpus
is small) and returns the ids to leave out of mining; :func:`train_lm` runs KenLM's own
``lmplz`` and ``build_binary`` on them. Texts are tokenised with
:mod:`paralib.text` before training, and the scorer tokenises translations the same
way before querying.

``lmplz`` estimates modified Kneser-Ney discounts from counts of counts; on small or repetitive
corpora those are out of range and it stops with ``BadDiscountException``. ``--discount_fallback``
makes it use fixed discounts (0.5, 1, 1.5) in that case only, so it is always passed.

The binaries are found in ``$PARALIB_KENLM_BIN`` (a folder), then
``${PARALIB_KENLM_DIR:-~/.cache/paralib/kenlm}/bin`` (where ``scripts/build_kenlm.sh`` puts
them), then ``PATH``.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from paralib.errors import MissingError
from paralib.text import detokenized

PAPER_REFERENCES = 40_000


class KenLMNotFoundError(MissingError, FileNotFoundError):
    """``lmplz`` or ``build_binary`` is not installed where paralib looks."""


def kenlm_dirs() -> list[Path]:
    """Folders searched for the KenLM binaries, in order (PATH comes after them)."""
    dirs = []
    if os.environ.get("PARALIB_KENLM_BIN"):
        dirs.append(Path(os.environ["PARALIB_KENLM_BIN"]).expanduser())
    base = os.environ.get("PARALIB_KENLM_DIR") or str(Path.home() / ".cache/paralib/kenlm")
    dirs.append(Path(base).expanduser() / "bin")
    return dirs


def find_kenlm_binary(name: str) -> Path:
    """Path of the KenLM program ``name`` (``lmplz`` or ``build_binary``)."""
    for d in kenlm_dirs():
        if (d / name).is_file() and os.access(d / name, os.X_OK):
            return d / name
    found = shutil.which(name)
    if found:
        return Path(found)
    looked = ", ".join(str(d) for d in kenlm_dirs())
    raise KenLMNotFoundError(
        f"KenLM's '{name}' not found (looked in $PARALIB_KENLM_BIN, {looked} and PATH); build it "
        "with scripts/build_kenlm.sh or set PARALIB_KENLM_BIN to the folder holding it")


def kenlm_tools_available() -> bool:
    """Whether both estimation programs (``lmplz`` and ``build_binary``) can be found."""
    try:
        find_kenlm_binary("lmplz")
        find_kenlm_binary("build_binary")
    except KenLMNotFoundError:
        return False
    return True


def _run(cmd: list[str], stdin_path: Path | None = None, stdout_path: Path | None = None) -> None:
    with contextlib.ExitStack() as files:
        fin = files.enter_context(open(stdin_path, "rb")) if stdin_path else subprocess.DEVNULL
        fout = files.enter_context(open(stdout_path, "wb")) if stdout_path else subprocess.DEVNULL
        proc = subprocess.run(cmd, stdin=fin, stdout=fout, stderr=subprocess.PIPE, check=False)
    if proc.returncode != 0:
        tail = proc.stderr.decode(errors="replace").strip().splitlines()[-5:]
        raise RuntimeError(f"{Path(cmd[0]).name} failed (exit {proc.returncode}): "
                           + " | ".join(tail))


def train_lm(texts: list[str], out_dir: str | Path, order: int = 3, memory: str = "10%",
             name: str = "lm") -> Path:
    """Train an ``order``-gram KenLM model on ``texts``; return ``out_dir/<name>.bin``.

    Writes ``<name>.bin`` (KenLM binary, probing) and ``<name>.json`` (order, sentences,
    tokens, the lmplz command). ``memory`` is lmplz's sort memory (``-S``).
    """
    lines = [t for t in detokenized(list(texts)) if t]
    if not lines:
        raise ValueError("train_lm: no non-empty text to train on")
    if order < 1:
        raise ValueError(f"train_lm: order must be >= 1, got {order}")
    lmplz, build_binary = find_kenlm_binary("lmplz"), find_kenlm_binary("build_binary")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    binary = out / f"{name}.bin"
    with tempfile.TemporaryDirectory(prefix="paralib-lm-", dir=out) as tmp:
        tmp_path = Path(tmp)
        corpus, arpa = tmp_path / "corpus.txt", tmp_path / "lm.arpa"
        corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _run([str(lmplz), "-o", str(order), "-S", memory, "-T", str(tmp_path),
              "--discount_fallback"], stdin_path=corpus, stdout_path=arpa)
        _run([str(build_binary), "-S", memory, "-T", str(tmp_path), "probing", str(arpa),
              str(binary) + ".tmp"])
        os.replace(str(binary) + ".tmp", binary)
    card = {"order": order, "sentences": len(lines),
            "tokens": int(sum(len(x.split()) for x in lines)),
            "lmplz": f"lmplz -o {order} -S {memory} --discount_fallback",
            "build_binary": "build_binary probing"}
    (out / f"{name}.json").write_text(json.dumps(card, indent=2))
    return binary


MANIFEST = "lms.json"


def train_lms(held_out: pd.DataFrame, out_dir: str | Path, order: int = 3,
              by: tuple[str, ...] = ("corpus", "src_lang"), memory: str = "10%") -> Path:
    """One model per language/corpus (§5.6) from :func:`hold_out_references`' output.

    Writes ``<corpus>-<src_lang>.bin`` per group and ``lms.json`` (``{"by": [...],
    "models": [{"corpus": ..., "src_lang": ..., "model": file, "references": n}]}``), which
    the ``lm`` scorer accepts as its ``model``. Returns ``out_dir``.
    """
    need = [c for c in (*by, "ref") if c not in held_out.columns]
    if need:
        raise ValueError(f"train_lms: input lacks column(s) {', '.join(need)}")
    if held_out.empty:
        raise ValueError("train_lms: no held-out references")
    out = Path(out_dir)
    models = []
    for key, group in held_out.groupby(list(by), sort=True):
        values = key if isinstance(key, tuple) else (key,)
        name = "-".join(str(v) for v in values)
        path = train_lm(group["ref"].tolist(), out, order=order, memory=memory, name=name)
        models.append({**dict(zip(by, map(str, values), strict=True)), "model": path.name,
                       "references": len(group)})
    (out / MANIFEST).write_text(json.dumps({"by": list(by), "order": order,
                                            "models": models}, indent=2))
    return out


def hold_out_references(pairs: pd.DataFrame, n: int = PAPER_REFERENCES,
                        max_fraction: float = 0.25, seed: int = 0,
                        by: tuple[str, ...] = ("corpus", "src_lang")) -> pd.DataFrame:
    """Pick distinct references to train the LM on, held out from the pairs to mine.

    Per group of ``by`` (one LM per language/corpus, §5.6): ``min(n, max_fraction x distinct
    references)`` references drawn at random (``seed``), at least one. Returns a DataFrame with
    the ``by`` columns, ``ref`` and ``ids`` (the list of pair ids with that reference: every
    hypothesis of its k-best list), so that selection can exclude them.
    """
    if not 0 < max_fraction <= 1:
        raise ValueError(f"max_fraction must be in (0, 1], got {max_fraction}")
    need = [c for c in (*by, "ref") if c not in pairs.columns]
    if need:
        raise ValueError(f"hold_out_references: input lacks column(s) {', '.join(need)}")
    df = pairs.copy()
    df["ref"] = df["ref"].fillna("").astype(str)
    df = df[df["ref"].str.strip() != ""]
    if "id" not in df.columns:
        df["id"] = df.index.astype(str)
    rng = np.random.default_rng(seed)
    out = []
    for key, group in df.groupby(list(by), sort=True):
        refs = group.groupby("ref", sort=True)["id"].agg(list)
        k = max(1, min(n, int(len(refs) * max_fraction)))
        pick = np.sort(rng.choice(len(refs), size=k, replace=False))
        part = pd.DataFrame({"ref": refs.index[pick], "ids": refs.to_numpy()[pick]})
        for col, value in zip(by, key if isinstance(key, tuple) else (key,), strict=True):
            part[col] = value
        out.append(part[[*by, "ref", "ids"]])
    if not out:
        return pd.DataFrame(columns=[*by, "ref", "ids"])
    return pd.concat(out, ignore_index=True)
