"""Hebrew lemmas from Debian's `hspell` (installed by `make install`; it reads ISO-8859-8 only).

One long-lived `hspell -a -l` process (its ispell-compatible pipe mode, with linguistic
analyses) answers one word per line, so a query costs well under a millisecond per new word;
answers are cached for the process. For each word the lemmas of its preferred reading are kept:
the whole word when hspell accepts it as is, else the shortest prefix split (ו+הקלות → הקלה).
Without hspell every lookup returns nothing, and the analyzer that uses it falls back to its
prefix rules (see `hebrew.get_analyzer`).
"""

from __future__ import annotations

import atexit
import functools
import re
import shutil
import subprocess
import threading
from collections.abc import Iterable
from typing import IO

_BLOCK_RE = re.compile(r"^(מילה חוקית|צירוף חוקי): ")
_LEMMA_RE = re.compile(r"^\t([א-ת]+)\(")
_WORD_RE = re.compile(r"[א-ת]{2,}")
_cache: dict[str, tuple[str, ...]] = {}
_lock = threading.Lock()
_process: subprocess.Popen | None = None


@functools.cache
def available() -> bool:
    return shutil.which("hspell") is not None


def _stdin(process: subprocess.Popen) -> IO[bytes]:
    """The pipe `_pipe` opened to hspell's input."""
    if process.stdin is None:
        raise ValueError("hspell was started without a pipe to its input")
    return process.stdin


def _stdout(process: subprocess.Popen) -> IO[bytes]:
    """The pipe `_pipe` opened from hspell's output."""
    if process.stdout is None:
        raise ValueError("hspell was started without a pipe from its output")
    return process.stdout


def _pipe() -> subprocess.Popen:
    global _process
    if _process is None or _process.poll() is not None:
        _process = subprocess.Popen(
            ["hspell", "-a", "-l"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,
        )
        _stdout(_process).readline()  # the version banner
        atexit.register(_close)
    return _process


def _close() -> None:
    global _process
    if _process is not None:
        _stdin(_process).close()
        _stdout(_process).close()
        _process.wait(timeout=5)
        _process = None


def _ask(word: str) -> list[str]:
    """hspell's answer for one word: its lines up to the blank line that ends it."""
    process = _pipe()
    _stdin(process).write((word + "\n").encode("iso-8859-8"))
    _stdin(process).flush()
    lines: list[str] = []
    while True:
        raw = _stdout(process).readline()
        if not raw:
            raise OSError("hspell stopped answering")
        line = raw.decode("iso-8859-8").rstrip("\n")
        if line == "":
            return lines
        lines.append(line)


def _preferred(lines: list[str], word: str) -> tuple[str, ...]:
    """Lemmas of the first reading: the whole word if hspell accepts it, else the first
    (shortest) prefix split. A word that is its own lemma stays just itself."""
    blocks: list[tuple[str, list[str]]] = []
    for line in lines:
        block = _BLOCK_RE.match(line)
        if block:
            blocks.append((block.group(1), []))
            continue
        lemma = _LEMMA_RE.match(line)
        if lemma and blocks and lemma.group(1) != "שונות":  # hspell's "misc" tag, not a lemma
            blocks[-1][1].append(lemma.group(1))
    if not blocks:
        return ()
    whole = [lemmas for kind, lemmas in blocks if kind == "מילה חוקית"]
    lemmas = list(dict.fromkeys(whole[0] if whole else blocks[0][1]))
    if word in lemmas:
        return (word,)
    # An ambiguous reading (בניה → בנה or בן) adds noise, not recall: measured, it cost nDCG.
    return tuple(lemmas) if len(lemmas) == 1 else ()


def lemmas(words: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Lemmas of each Hebrew word (empty for unknown words, or when hspell is absent)."""
    wanted = list(dict.fromkeys(w for w in words if _WORD_RE.fullmatch(w)))
    todo = [w for w in wanted if w not in _cache]
    if todo and available():
        with _lock:
            for word in todo:
                if word not in _cache:
                    try:
                        _cache[word] = _preferred(_ask(word), word)
                    except OSError:
                        _cache[word] = ()
    return {w: _cache.get(w, ()) for w in wanted}
