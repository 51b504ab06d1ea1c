"""The optional image channel (MULTIMODAL_ENABLED): page images of PDFs embedded with Voyage's
multimodal model (1024-d), and queries embedded into the same space. Off by default; when on it
needs VOYAGE_API_KEY. Pages are rendered with poppler's `pdftoppm`."""

from __future__ import annotations

import hashlib
import io
import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np

from ..config import Settings
from ..errors import ProviderError, UnsupportedFile
from .embedders import QueryCache, voyage_batches


class VoyageMultimodal:
    id = "voyage-multimodal"
    dim = 1024
    _BATCH = 8

    def __init__(self, api_key: str, model: str, base_url: str | None = None) -> None:
        try:
            import voyageai
        except ImportError as exc:
            raise ProviderError("MULTIMODAL_ENABLED needs the voyageai package") from exc
        self._client = voyageai.Client(api_key=api_key, max_retries=2, base_url=base_url)
        self._model = model
        self.queries = QueryCache()  # a repeated query's image-leg vector without a network call

    def _embed(self, inputs: list[list], input_type: str) -> np.ndarray:
        def call(batch: list) -> object:
            return self._client.multimodal_embed(batch, model=self._model, input_type=input_type)

        return voyage_batches(call, inputs, self._BATCH, self.dim, "Voyage multimodal embedding")

    def embed_images(self, pngs: list[bytes]) -> np.ndarray:
        from PIL import Image

        images = [[Image.open(io.BytesIO(png))] for png in pngs]
        return self._embed(images, "document") if images else np.zeros((0, self.dim), np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        return self.queries.get(self.id, text, lambda t: self._embed([[t]], "query")[0])


def make_multimodal(settings: Settings) -> VoyageMultimodal | None:
    """The image embedder when MULTIMODAL_ENABLED, else None."""
    if not settings.multimodal_enabled:
        return None
    if not settings.voyage_api_key:
        raise ProviderError("MULTIMODAL_ENABLED=true needs VOYAGE_API_KEY (or turn it off)")
    return VoyageMultimodal(
        settings.voyage_api_key, settings.voyage_multimodal_model, settings.voyage_base_url
    )


def render_pages(pdf: Path, dpi: int = 72) -> list[tuple[int, bytes, str]]:
    """(page number, PNG bytes, sha256) for every page of `pdf`."""
    if shutil.which("pdftoppm") is None:
        raise UnsupportedFile(f"{pdf}: page images need poppler's pdftoppm (make install)")
    with tempfile.TemporaryDirectory(prefix="legal-ai-pages-") as tmp:
        result = subprocess.run(
            ["pdftoppm", "-r", str(dpi), "-png", str(pdf), str(Path(tmp) / "p")],
            capture_output=True,
            timeout=300,
            check=False,
        )
        if result.returncode != 0:
            raise UnsupportedFile(f"{pdf}: could not render its pages for the image leg")
        files = sorted(Path(tmp).glob("p-*.png"), key=lambda f: int(f.stem.rsplit("-", 1)[1]))
        pages = []
        for file in files:
            data = file.read_bytes()
            pages.append((int(file.stem.rsplit("-", 1)[1]), data, hashlib.sha256(data).hexdigest()))
    return pages
