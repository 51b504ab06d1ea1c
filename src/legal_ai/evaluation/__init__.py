"""Evaluation (INV-RET4): BEIR-layout datasets, runs through the project's own ingestion and
search, IR metrics from a maintained library (ir-measures), paired bootstrap intervals, peers,
and the baseline gate."""

from .datasets import Dataset, load_dataset
from .harness import evaluate

__all__ = ["Dataset", "evaluate", "load_dataset"]
